/**
 * The permission model an app declares its rules in (docs/permissions.md), after Frappe's role permissions:
 * users hold roles; each DocType declares, per role, which operations that role may perform; a user may
 * perform an operation when any of their roles grants it. `System Manager` may do everything.
 */

/** The role that may do everything, including changing roles and permissions. Administrator holds it. */
export const SYSTEM_MANAGER = 'System Manager';

/** The operations a rule grants on a DocType. `read_pii` lets a reader see `pii` fields unmasked. */
export const OPERATIONS = ['read', 'create', 'write', 'delete', 'read_pii'] as const;

/** One operation on a DocType's records. */
export type Operation = (typeof OPERATIONS)[number];

/** A rule: what one role may do on one DocType. An operation left out is not granted. */
export interface PermissionRule {
  role: string;
  read?: boolean;
  create?: boolean;
  write?: boolean;
  delete?: boolean;
  read_pii?: boolean;
}

/** Pattern of a role name: letters, digits, spaces and `_-.`, starting with a letter; at most 64 chars. */
export const ROLE_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9 _.-]{0,63}$/;
