import type { MenuItem } from '../protocol';
import type { DocTypeDefinition } from './doctype';
import { OPERATIONS, type PermissionRule, ROLE_NAME_PATTERN } from './permissions';
import type { RpcMethod } from './rpc';

/** Pattern of an app (and service) name: lower-case, starts with a letter, at most 32 characters. */
export const APP_NAME_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;

/**
 * The field flags a DocType model field may carry in `.meta()`: `pii` (personal data) and `encrypted` are
 * encrypted in the browser before they leave it; `inList` shows the field in list views.
 */
export const FIELD_FLAGS = ['pii', 'encrypted', 'inList'] as const;

/** What {@link defineApp} takes; `menus` defaults to one entry per DocType. */
export interface AppDefinition {
  /** Service name and the `<app>.` prefix of every DocType and RPC method. */
  name: string;
  label: string;
  doctypes: DocTypeDefinition[];
  /** Full dotted name (`notes.api.count`) -> method. */
  // biome-ignore lint/suspicious/noExplicitAny: each method has its own kwargs type
  methods?: Record<string, RpcMethod<any>>;
  menus?: MenuItem[];
  /**
   * Default permissions per DocType: full DocType name -> what each role may do (docs/permissions.md). A
   * DocType without rules is for System Managers only. Administrators may replace them at run time.
   *
   * @example
   * permissions: { 'notes.Note': [{ role: 'Notes User', read: true, create: true, write: true }] }
   */
  permissions?: Record<string, readonly PermissionRule[]>;
}

/** An installed app: its DocTypes, RPC methods (keyed by full dotted name) and Desk menu entries. */
export interface InstalledApp {
  /** Service name, e.g. `crm`; also the `<app>` prefix of its DocTypes. */
  name: string;
  label: string;
  doctypes: DocTypeDefinition[];
  /** Full dotted name (`crm.api.customer_count`) -> method. Every name starts with `<app>.`. */
  // biome-ignore lint/suspicious/noExplicitAny: each method has its own kwargs type
  methods: Record<string, RpcMethod<any>>;
  menus: MenuItem[];
  /** Default permissions per DocType (see {@link AppDefinition.permissions}). */
  permissions?: Record<string, readonly PermissionRule[]>;
  /** The app's folder when it was installed from a path (`<dir>/static/mfe/` holds its UI remote). */
  dir?: string;
}

/** An app as the platform installs it, marked as coming from {@link defineApp}. */
export type DefinedApp = InstalledApp & { readonly [DEFINED_APP]: true };

const DEFINED_APP = Symbol.for('framework-m.defined-app');

/** Throws unless every permission rule names a DocType of the app, a valid role and known operations. */
function checkPermissions(definition: AppDefinition): void {
  const own = new Set(definition.doctypes.map((d) => d.name));
  const known = new Set<string>(['role', ...OPERATIONS]);
  for (const [doctype, rules] of Object.entries(definition.permissions ?? {})) {
    if (!own.has(doctype)) {
      throw new Error(`permissions name ${doctype}, which is not a DocType of app "${definition.name}"`);
    }
    for (const rule of rules) {
      if (typeof rule.role !== 'string' || !ROLE_NAME_PATTERN.test(rule.role)) {
        throw new Error(`a permission rule of ${doctype} has an invalid role "${String(rule.role)}"`);
      }
      const unknown = Object.keys(rule).filter((key) => !known.has(key));
      if (unknown.length > 0) {
        throw new Error(
          `the rule of role "${rule.role}" on ${doctype} has unknown operations: ${unknown.join(', ')} (known: ${OPERATIONS.join(', ')})`,
        );
      }
    }
  }
}

/**
 * Declares an app. Checks what would otherwise fail later at start: the name's form, that every DocType is
 * `<name>.<DocType>`, every RPC method `<name>.<module>.<method>`, and that permission rules name the app's
 * own DocTypes, valid roles and known operations. Throws `Error` naming the offender.
 *
 * @example
 * export default defineApp({
 *   name: 'notes', label: 'Notes', doctypes: [Note],
 *   permissions: { 'notes.Note': [{ role: 'Notes User', read: true, create: true, write: true }] },
 * });
 */
export function defineApp(definition: AppDefinition): DefinedApp {
  const { name } = definition;
  if (!APP_NAME_PATTERN.test(name)) {
    throw new Error(`app name "${name}" must be lower-case letters, digits and _ (starting with a letter)`);
  }
  for (const doctype of definition.doctypes) {
    if (doctype.app !== name) {
      throw new Error(`DocType ${doctype.name} does not belong to app "${name}" (name it ${name}.<DocType>)`);
    }
  }
  const methods = definition.methods ?? {};
  for (const method of Object.keys(methods)) {
    if (!method.startsWith(`${name}.`)) {
      throw new Error(
        `RPC method ${method} does not belong to app "${name}" (name it ${name}.<module>.<method>)`,
      );
    }
  }
  checkPermissions(definition);
  const menus = definition.menus ?? definition.doctypes.map((d) => ({ label: d.label, doctype: d.name }));
  const app: InstalledApp = { name, label: definition.label, doctypes: definition.doctypes, methods, menus };
  if (definition.permissions) app.permissions = definition.permissions;
  Object.defineProperty(app, DEFINED_APP, { value: true });
  return app as DefinedApp;
}

/** True for a value made by {@link defineApp} (or any object with an app's shape). */
export function isDefinedApp(value: unknown): value is InstalledApp {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<InstalledApp>;
  return (
    typeof v.name === 'string' &&
    typeof v.label === 'string' &&
    Array.isArray(v.doctypes) &&
    typeof v.methods === 'object' &&
    Array.isArray(v.menus)
  );
}
