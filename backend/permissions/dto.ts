import { z } from 'zod';
import { ROLE_NAME_PATTERN } from './model';

/** One rule as an administrator sends it. */
export const PermissionRuleInput = z.strictObject({
  role: z.string().regex(ROLE_NAME_PATTERN),
  read: z.boolean().optional(),
  create: z.boolean().optional(),
  write: z.boolean().optional(),
  delete: z.boolean().optional(),
  read_pii: z.boolean().optional(),
});

/** `PUT /api/permissions/:doctype`: the complete rules of a DocType, replacing its defaults. */
export const SetPermissionsRequest = z.strictObject({ rules: z.array(PermissionRuleInput).max(100) });

/** A list of role names (users' roles, the CLI, the Users page). */
export const RoleList = z.array(z.string().regex(ROLE_NAME_PATTERN)).max(50);
