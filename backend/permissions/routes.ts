import { type Context, Hono } from 'hono';
import { PERMISSIONS_PREFIX } from '../../src/protocol';
import type { AppEnv, Principal } from '../http/env';
import { PlatformError } from '../http/errors';
import { readJsonBody } from '../http/read-body';
import { unauthorized } from '../middleware/auth';
import { SetPermissionsRequest } from './dto';
import { forbidden } from './guard';
import { SYSTEM_MANAGER } from './model';
import type { PermissionService } from './permission-service';

/** The roles a principal carries (none when it carries none). */
export function rolesOf(principal: Principal | undefined): readonly string[] {
  const roles = (principal as { roles?: unknown } | undefined)?.roles;
  return Array.isArray(roles) ? roles.filter((r): r is string => typeof r === 'string') : [];
}

function principalOf(c: Context<AppEnv>): Principal {
  const principal = c.get('principal');
  if (!principal) throw unauthorized();
  return principal;
}

/** What {@link permissionRoutes} needs. */
export interface PermissionRoutesDeps {
  permissions: PermissionService;
}

/**
 * The permissions of this process's DocTypes (docs/permissions.md#at-run-time), where the data lives (the
 * monolith, or the owning service behind its gateway):
 * - `GET /api/permissions`: `{ message: { <doctype>: { read, create, write, delete, read_pii } } }` for the
 *   caller's roles;
 * - `GET /api/permissions/roles`: `{ message: [role] }`, the roles the rules in force and the RPC methods
 *   here name (System Manager; the users API gathers them, docs/permissions.md#users);
 * - `GET /api/permissions/:doctype`: `{ data: { doctype, rules, customized } }` (System Manager);
 * - `PUT /api/permissions/:doctype` `{ rules: [{ role, read?, create?, write?, delete?, read_pii? }] }`:
 *   replaces the DocType's rules, stored so they survive restarts (System Manager);
 * - `DELETE /api/permissions/:doctype`: back to the rules the app declares (System Manager).
 */
export function permissionRoutes({ permissions }: PermissionRoutesDeps): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  const managed = (c: Context<AppEnv>): string => {
    const doctype = c.req.param('doctype') ?? '';
    if (!rolesOf(principalOf(c)).includes(SYSTEM_MANAGER)) throw forbidden('manage', 'permissions');
    if (!permissions.governs(doctype)) {
      throw new PlatformError('unknown_doctype', 'No such DocType is installed.', { status: 404 });
    }
    return doctype;
  };

  routes.get(PERMISSIONS_PREFIX, async (c) => {
    const map = await permissions.permissionMap(rolesOf(principalOf(c)));
    c.header('Cache-Control', 'no-store');
    return c.json({ message: map });
  });

  // Before `/:doctype`: a DocType's name always holds a dot (`<app>.<DocType>`), so `roles` is none.
  routes.get(`${PERMISSIONS_PREFIX}/roles`, async (c) => {
    if (!rolesOf(principalOf(c)).includes(SYSTEM_MANAGER)) throw forbidden('manage', 'permissions');
    c.header('Cache-Control', 'no-store');
    return c.json({ message: await permissions.roles() });
  });

  routes.get(`${PERMISSIONS_PREFIX}/:doctype`, async (c) => {
    const doctype = managed(c);
    c.header('Cache-Control', 'no-store');
    return c.json({ data: { doctype, ...(await permissions.rules(doctype)) } });
  });

  routes.put(`${PERMISSIONS_PREFIX}/:doctype`, async (c) => {
    const doctype = managed(c);
    const parsed = SetPermissionsRequest.safeParse(await readJsonBody(c));
    if (!parsed.success) {
      const fields = parsed.error.issues.map((i) => ({
        field: i.path.join('.') || '(body)',
        code: i.code,
        message: 'Invalid value.',
      }));
      throw new PlatformError('validation_failed', 'The rules are not valid.', { status: 422, fields });
    }
    await permissions.setRules(doctype, parsed.data.rules);
    return c.json({ data: { doctype, ...(await permissions.rules(doctype)) } });
  });

  routes.delete(`${PERMISSIONS_PREFIX}/:doctype`, async (c) => {
    const doctype = managed(c);
    await permissions.resetRules(doctype);
    return c.json({ data: { doctype, ...(await permissions.rules(doctype)) } });
  });

  return routes;
}
