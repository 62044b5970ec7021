import type { DocTypeDefinition } from '../../src/contract/doctype';

/** The DocTypes of the installed apps, by full name (`crm.Customer`) and by app. */
export interface DocTypeRegistry {
  /** The DocType with this full name, or undefined. */
  get(name: string): DocTypeDefinition | undefined;
  /** Every DocType, in app order then declaration order. */
  list(): DocTypeDefinition[];
  /** The DocTypes of one app (empty when the app is not installed). */
  byApp(app: string): DocTypeDefinition[];
}

/** Every record has these (name, timestamps, last author); a model field may not reuse them. */
const RESERVED_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'creation',
  'modified',
  'modified_by',
  'doctype',
]);

/**
 * Builds a registry from DocType definitions. A duplicate full name, or a DocType whose `<app>.` prefix is
 * not the app declaring it, or a field named like a standard column, is a startup error: ownership of a DocType must be unambiguous for discovery.
 */
export function createDocTypeRegistry(
  apps: ReadonlyArray<{ name: string; doctypes: DocTypeDefinition[] }>,
): DocTypeRegistry {
  const byName = new Map<string, DocTypeDefinition>();
  const byAppName = new Map<string, DocTypeDefinition[]>();
  for (const app of apps) {
    for (const doctype of app.doctypes) {
      if (doctype.app !== app.name) {
        throw new Error(
          `DocType ${doctype.name} is declared by app "${app.name}" but named for "${doctype.app}"`,
        );
      }
      if (byName.has(doctype.name)) throw new Error(`DocType ${doctype.name} is declared twice`);
      const reserved = doctype.fields.find((f) => RESERVED_FIELDS.has(f.name));
      if (reserved) throw new Error(`DocType ${doctype.name} declares the reserved field "${reserved.name}"`);
      byName.set(doctype.name, doctype);
    }
    byAppName.set(app.name, [...app.doctypes]);
  }
  const all = [...byName.values()];
  return {
    get: (name) => byName.get(name),
    list: () => [...all],
    byApp: (app) => [...(byAppName.get(app) ?? [])],
  };
}
