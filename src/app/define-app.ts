import type { InstalledApp, RpcMethod } from '../../backend/apps/types';
import type { DocTypeDefinition } from '../../backend/doctypes/define-doctype';
import type { MenuItem } from '../protocol';

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
}

/** An app as the platform installs it, marked as coming from {@link defineApp}. */
export type DefinedApp = InstalledApp & { readonly [DEFINED_APP]: true };

const DEFINED_APP = Symbol.for('framework-m.defined-app');

/**
 * Declares an app. Checks what would otherwise fail later at start: the name's form, that every DocType is
 * `<name>.<DocType>` and every RPC method `<name>.<module>.<method>`. Throws `Error` naming the offender.
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
  const menus = definition.menus ?? definition.doctypes.map((d) => ({ label: d.label, doctype: d.name }));
  const app = { name, label: definition.label, doctypes: definition.doctypes, methods, menus };
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
