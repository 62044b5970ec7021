/**
 * The permission model (docs/permissions.md), after Frappe's role permissions: users hold roles; each
 * DocType declares, per role, which operations that role may perform; a user may perform an operation when
 * any of their roles grants it. `System Manager` may do everything, whatever the rules say.
 */

import type { Operation, PermissionRule } from '../../src/contract/permissions';

export type { Operation, PermissionRule } from '../../src/contract/permissions';
export { OPERATIONS, ROLE_NAME_PATTERN, SYSTEM_MANAGER } from '../../src/contract/permissions';

import { SYSTEM_MANAGER } from '../../src/contract/permissions';

/** The role that may read `/metrics` and nothing more (docs/operators.md#metrics). */
export const METRICS_READER = 'Metrics Reader';

/** Roles the platform itself gives meaning to, whatever the installed apps' rules name. */
export const BUILT_IN_ROLES: readonly string[] = [SYSTEM_MANAGER, METRICS_READER];

/** The roles worth giving a user: the built-in ones and those the rules in force name (`named`), sorted. */
export function rolesWorthGiving(named: readonly string[]): string[] {
  return [...new Set([...BUILT_IN_ROLES, ...named])].sort();
}

/** What a user may do on one DocType, every operation spelt out. */
export type DocTypePermissions = Record<Operation, boolean>;

/** A user's effective permissions, by full DocType name. */
export type PermissionMap = Record<string, DocTypePermissions>;

/** Nothing granted. */
export const NO_PERMISSIONS: Readonly<DocTypePermissions> = Object.freeze({
  read: false,
  create: false,
  write: false,
  delete: false,
  read_pii: false,
});

/** Everything granted (System Manager). */
export const ALL_PERMISSIONS: Readonly<DocTypePermissions> = Object.freeze({
  read: true,
  create: true,
  write: true,
  delete: true,
  read_pii: true,
});

/** A rule with every operation spelt out (absent ones false), for storage and display. */
export function normalizeRule(rule: PermissionRule): Required<PermissionRule> {
  return {
    role: rule.role,
    read: rule.read === true,
    create: rule.create === true,
    write: rule.write === true,
    delete: rule.delete === true,
    read_pii: rule.read_pii === true,
  };
}
