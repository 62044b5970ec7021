import {
  ALL_PERMISSIONS,
  type DocTypePermissions,
  NO_PERMISSIONS,
  OPERATIONS,
  type Operation,
  type PermissionRule,
  SYSTEM_MANAGER,
} from './model';

/**
 * What a holder of `roles` may do on a DocType governed by `rules`: the union of the rules of the roles held
 * (a grant in any rule wins; nothing denies). `System Manager` gets everything. Pure: no I/O, no clock.
 */
export function effectivePermissions(
  roles: readonly string[],
  rules: readonly PermissionRule[],
): DocTypePermissions {
  if (roles.includes(SYSTEM_MANAGER)) return { ...ALL_PERMISSIONS };
  const held = new Set(roles);
  const result: DocTypePermissions = { ...NO_PERMISSIONS };
  for (const rule of rules) {
    if (!held.has(rule.role)) continue;
    for (const op of OPERATIONS) if (rule[op] === true) result[op] = true;
  }
  // Reading personal data presupposes reading the record at all.
  if (!result.read) result.read_pii = false;
  return result;
}

/** True when a holder of `roles` may perform `operation` under `rules`. */
export function isAllowed(
  roles: readonly string[],
  rules: readonly PermissionRule[],
  operation: Operation,
): boolean {
  return effectivePermissions(roles, rules)[operation];
}

/**
 * True when a holder of `roles` may call an RPC method that declares `allowed` roles. A method that declares
 * none is for System Managers only (closed by default).
 */
export function mayCallMethod(roles: readonly string[], allowed: readonly string[] | undefined): boolean {
  if (roles.includes(SYSTEM_MANAGER)) return true;
  return (allowed ?? []).some((role) => roles.includes(role));
}
