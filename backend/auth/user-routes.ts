import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { USERS_PATHS } from '../../src/protocol';
import type { AppEnv, Principal } from '../http/env';
import { PlatformError } from '../http/errors';
import { readJsonBody } from '../http/read-body';
import { unauthorized } from '../middleware/auth';
import { RoleList } from '../permissions/dto';
import { forbidden } from '../permissions/guard';
import { rolesWorthGiving, SYSTEM_MANAGER } from '../permissions/model';
import { rolesOf } from '../permissions/routes';
import { PASSWORD_LENGTH, PASSWORD_RULE, USER_NAME_PATTERN, USER_NAME_RULE } from './user-administration';
import type { UserDirectory } from './user-directory';

// The rules' own sentences as the messages: the users API and `m user` offline say the same.
const USER_NAME = z
  .string({ error: USER_NAME_RULE })
  .min(1, { error: USER_NAME_RULE })
  .max(140, { error: USER_NAME_RULE })
  .regex(USER_NAME_PATTERN, { error: USER_NAME_RULE });
const PASSWORD = z
  .string({ error: PASSWORD_RULE })
  .min(PASSWORD_LENGTH.min, { error: PASSWORD_RULE })
  .max(PASSWORD_LENGTH.max, { error: PASSWORD_RULE });
/** Messages a field error may carry: fixed sentences, never a value sent. */
const RULES: ReadonlySet<string> = new Set([USER_NAME_RULE, PASSWORD_RULE]);

/** Request DTOs of the users API (no `pii` flags: not DocType models). */
const AddUserRequest = z.strictObject({ name: USER_NAME, password: PASSWORD, roles: RoleList });
const SetRolesRequest = z.strictObject({ name: USER_NAME, roles: RoleList });
const SetPasswordRequest = z.strictObject({ name: USER_NAME, password: PASSWORD });
const UserNameRequest = z.strictObject({ name: USER_NAME });

async function body<T>(c: Context<AppEnv>, schema: z.ZodType<T>): Promise<T> {
  const parsed = schema.safeParse(await readJsonBody(c));
  if (parsed.success) return parsed.data;
  // Field names and codes only: a password is never echoed back.
  const fields = parsed.error.issues.map((i) => ({
    field: i.path.join('.') || '(body)',
    code: i.code,
    message: RULES.has(i.message) ? i.message : 'Invalid value.',
  }));
  // One rule broken: its sentence, as `m user` on a stopped server says it.
  const [only] = fields;
  const message =
    fields.length === 1 && RULES.has(only!.message) ? only!.message : 'The request body is not valid.';
  throw new PlatformError('validation_failed', message, { status: 400, fields });
}

/** What {@link userRoutes} needs. */
export interface UserRoutesDeps {
  users: UserDirectory;
  /** The roles the permission rules name, asked as the caller (this process's rules, or every service's). */
  knownRoles(principal: Principal): Promise<readonly string[]>;
}

/**
 * The users API (docs/permissions.md#users), for System Managers only; each call is `POST` with a JSON body
 * and answers `{ message }`:
 * - `platform.users.list` `{}` -> `[{ name, roles, enabled }]`;
 * - `platform.users.add` `{ name, password, roles }`;
 * - `platform.users.set_roles` `{ name, roles }`;
 * - `platform.users.set_password` `{ name, password }` (revokes the user's sessions, tokens and keys);
 * - `platform.users.disable` `{ name }` (the same revocation);
 * - `platform.users.enable` `{ name }` (signs in again with the password it has; revoked credentials stay so);
 * - `platform.users.roles` `{}` -> `[role]`: the roles worth giving, those the platform defines and those the
 *   rules in force name (a role nothing names grants nothing; any name may still be given).
 */
export function userRoutes({ users, knownRoles }: UserRoutesDeps): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.use('/api/method/platform.users.*', async (c, next) => {
    const principal = c.get('principal');
    if (!principal) throw unauthorized();
    if (!rolesOf(principal).includes(SYSTEM_MANAGER)) throw forbidden('manage', 'users');
    c.header('Cache-Control', 'no-store');
    await next();
  });
  routes.post(USERS_PATHS.list, async (c) => c.json({ message: await users.listUsers() }));
  routes.post(USERS_PATHS.roles, async (c) => {
    const named = await knownRoles(c.get('principal')!);
    return c.json({ message: rolesWorthGiving(named) });
  });
  routes.post(USERS_PATHS.add, async (c) => {
    const { name, password, roles } = await body(c, AddUserRequest);
    await users.addUser(name, password, roles);
    return c.json({ message: null });
  });
  routes.post(USERS_PATHS.setRoles, async (c) => {
    const { name, roles } = await body(c, SetRolesRequest);
    await users.setRoles(name, roles);
    return c.json({ message: null });
  });
  routes.post(USERS_PATHS.setPassword, async (c) => {
    const { name, password } = await body(c, SetPasswordRequest);
    await users.setPassword(name, password);
    return c.json({ message: null });
  });
  routes.post(USERS_PATHS.disable, async (c) => {
    const { name } = await body(c, UserNameRequest);
    await users.disableUser(name);
    return c.json({ message: null });
  });
  routes.post(USERS_PATHS.enable, async (c) => {
    const { name } = await body(c, UserNameRequest);
    await users.enableUser(name);
    return c.json({ message: null });
  });
  return routes;
}
