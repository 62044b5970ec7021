import type { DocTypeDefinition } from '../../src/contract/doctype';
import { indexName, SAFE_NAME, uniqueFields, uniqueIndexName } from '../data/index-names';
import type { Database } from './database';
import { registerMigration } from './migrations';

/**
 * Field indexes of the generic `records` table (docs/performance.md#indexes). Every DocType's records share
 * one table with their fields in a JSONB `data` column, so an index is a partial expression index: on the
 * field's expression (`data->>'field'`, cast like the list query casts it), restricted to one DocType by
 * `WHERE doctype = '<DocType>'`. The list query writes the very same expressions, which is what lets the
 * planner use them.
 */

// The default list order, `modified DESC, name ASC` (name the final tie-break), read straight from an
// index: a page costs its own rows, and `OFFSET` walks index entries instead of sorting the DocType
// (docs/performance.md#lists-on-large-tables).
registerMigration({
  id: 'data.records_default_order',
  sql: 'CREATE INDEX IF NOT EXISTS records_doctype_modified_name ON records (doctype, modified DESC, name)',
});

// `(doctype, modified DESC)` of core.records is a prefix of the index above, which serves every plan it
// served: every write kept both up to date for nothing (about 5 % of an insert and update's CPU on PGlite).
registerMigration({
  id: 'data.records_drop_doctype_modified',
  sql: 'DROP INDEX IF EXISTS records_doctype_modified',
});

/** How a field's value is compared, and so which expression its index is built on. */
type ExpressionKind = 'text' | 'number' | 'boolean';

const NUMERIC_TYPES: ReadonlySet<string> = new Set(['int', 'float', 'currency']);
const SAFE_DOCTYPE = /^[a-z][a-z0-9_]{0,63}\.[A-Z][A-Za-z0-9]{0,63}$/;

/** A name as a SQL string literal, after checking it is an identifier (it comes from a definition). */
export function nameLiteral(name: string, pattern: RegExp = SAFE_NAME): string {
  if (!pattern.test(name)) throw new Error(`"${name}" cannot be used in an index expression`);
  return `'${name}'`;
}

/** `'crm.Customer'`: a DocType name as a literal, checked against the DocType name pattern. */
export function doctypeLiteral(doctype: string): string {
  return nameLiteral(doctype, SAFE_DOCTYPE);
}

function kindOf(doctype: DocTypeDefinition, field: string): ExpressionKind {
  const type = doctype.fields.find((f) => f.name === field)?.type as string | undefined;
  if (type && NUMERIC_TYPES.has(type)) return 'number';
  if (type === 'boolean') return 'boolean';
  return 'text';
}

/**
 * The SQL expression of a DocType field as the list query and the indexes both write it: `(data->>'f')`,
 * `((data->>'f')::numeric)` or `((data->>'f')::boolean)`.
 */
export function fieldExpression(doctype: DocTypeDefinition, field: string): string {
  const text = `(data->>${nameLiteral(field)})`;
  switch (kindOf(doctype, field)) {
    case 'number':
      return `(${text}::numeric)`;
    case 'boolean':
      return `(${text}::boolean)`;
    default:
      return text;
  }
}

/** The lower-cased text of a field, the expression prefix search (`like`) is indexed on. */
export function searchExpression(field: string): string {
  return `lower(data->>${nameLiteral(field)})`;
}

/**
 * The fields of `doctype` that get an index: the title field (title search and the Link picker), every
 * field declared `index: true`, and Link and `unique` fields (looked up by value on every reference check
 * and every insert).
 */
export function indexedFields(doctype: DocTypeDefinition): string[] {
  const names = new Set<string>();
  if (doctype.fields.some((f) => f.name === doctype.titleField)) names.add(doctype.titleField);
  for (const name of doctype.indexed ?? []) names.add(name);
  for (const field of doctype.fields) {
    const flags = field as { type: string; unique?: boolean; link?: unknown; options?: unknown };
    if (flags.unique === true || flags.type === 'link' || flags.link !== undefined) names.add(field.name);
  }
  return [...names].filter((name) => SAFE_NAME.test(name));
}

/** The statements giving one field of a DocType its index. */
interface FieldIndex {
  /** `CREATE [UNIQUE] INDEX IF NOT EXISTS ...` */
  create: string;
  /**
   * For a `unique` field: the plain index it replaces (an index created before uniqueness was the
   * database's), dropped once the unique one exists, and created instead when existing records already
   * share a value (the unique index then cannot be built).
   */
  replaces?: { drop: string; fallback: string };
}

function fieldIndexes(doctype: DocTypeDefinition): FieldIndex[] {
  const where = `WHERE doctype = ${doctypeLiteral(doctype.name)}`;
  const unique = new Set(uniqueFields(doctype));
  const indexes: FieldIndex[] = [];
  for (const field of indexedFields(doctype)) {
    const plain = indexName(doctype.name, field, '');
    const on = `ON records (${fieldExpression(doctype, field)}) ${where}`;
    const create = `CREATE INDEX IF NOT EXISTS ${plain} ${on}`;
    indexes.push(
      unique.has(field)
        ? {
            create: `CREATE UNIQUE INDEX IF NOT EXISTS ${uniqueIndexName(doctype.name, field)} ${on}`,
            replaces: { drop: `DROP INDEX IF EXISTS ${plain}`, fallback: create },
          }
        : { create },
    );
    if (kindOf(doctype, field) === 'text') {
      indexes.push({
        create: `CREATE INDEX IF NOT EXISTS ${indexName(doctype.name, field, '_search')} ON records (${searchExpression(field)} text_pattern_ops) ${where}`,
      });
    }
  }
  return indexes;
}

/** The `CREATE INDEX IF NOT EXISTS` statements for one DocType (a `unique` field's index is UNIQUE). */
export function indexStatements(doctype: DocTypeDefinition): string[] {
  return fieldIndexes(doctype).map((index) => index.create);
}

/** Whether the list query can use an index for `field` of `doctype` (the search index for text). */
export function isIndexed(doctype: DocTypeDefinition, field: string): boolean {
  return indexedFields(doctype).includes(field);
}

/**
 * Creates the indexes of the installed DocTypes (idempotent: run at every start). An index whose
 * expression fails on existing data (a field whose type changed) is reported and skipped, not fatal:
 * lists still work, only slower. A `unique` field whose existing records already share a value gets its
 * plain index instead, and the report says so: the write's own check still refuses new duplicates one
 * request at a time, but not two concurrent writes of the same value, until the duplicates are resolved
 * and the server restarted (docs/operators.md#unique-fields).
 */
export async function ensureRecordIndexes(
  db: Pick<Database, 'query'>,
  doctypes: readonly DocTypeDefinition[],
  log: (line: string) => void = () => {},
): Promise<void> {
  for (const doctype of doctypes) {
    for (const index of fieldIndexes(doctype)) {
      try {
        await db.query(index.create);
        if (index.replaces) await db.query(index.replaces.drop);
      } catch (err) {
        // The message names the index, never the duplicated value (that is in the error's detail).
        log(`index of ${doctype.name} not created: ${(err as Error).message}`);
        if (!index.replaces) continue;
        try {
          await db.query(index.replaces.fallback);
        } catch (fallbackErr) {
          log(`index of ${doctype.name} not created: ${(fallbackErr as Error).message}`);
        }
      }
    }
  }
}
