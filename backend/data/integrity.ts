/**
 * What keeps records consistent with each other beyond one record's own validation: `unique` fields (no two
 * records share the value: 409 `duplicate`), Link fields (the linked record must exist, wherever its
 * DocType lives: 422 `link_not_found`), and deletion of a record other records of this service link to
 * (409 `linked`).
 */

import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { DocTypeRegistry } from '../doctypes/registry';
import type { Principal } from '../http/env';
import { type FieldError, PlatformError } from '../http/errors';
import { uniqueFields, uniqueIndexName } from './index-names';
import type { RecordStore } from './records';

/**
 * Tells whether a record exists: true, false, or undefined when it cannot be told now (the owning service
 * did not answer). Records of this process's own DocTypes are looked up directly; others are asked of
 * their owner.
 */
export interface LinkResolver {
  exists(docType: string, name: string, principal: Principal | undefined): Promise<boolean | undefined>;
}

/** What the checks read. */
export interface IntegrityDeps {
  records: RecordStore;
  doctypes: Pick<DocTypeRegistry, 'get' | 'list'>;
  /** For DocTypes this process does not own; without one, such links cannot be checked (503). */
  remoteLinks?: LinkResolver;
}

/** A resolver that answers from this process's records, and asks `remote` for other DocTypes. */
export function linkResolver(deps: IntegrityDeps): LinkResolver {
  return {
    async exists(docType, name, principal) {
      const local = deps.doctypes.get(docType);
      if (local) return (await deps.records.get(local, name)) !== undefined;
      return deps.remoteLinks ? deps.remoteLinks.exists(docType, name, principal) : undefined;
    },
  };
}

/**
 * 409 `duplicate` when another record of `doctype` already has the value of one of its `unique` fields
 * (`self` is the record being updated, which may keep its own value).
 */
export async function checkUnique(
  deps: IntegrityDeps,
  doctype: DocTypeDefinition,
  data: Record<string, unknown>,
  self?: string,
): Promise<void> {
  const fields: string[] = [];
  for (const field of doctype.fields) {
    const value = data[field.name];
    if (!field.unique || value === undefined || value === null) continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') continue;
    const page = await deps.records.list(doctype, {
      filters: [{ field: field.name, op: '=', value }],
      start: 0,
      pageLength: 2,
      orderBy: [],
    });
    if (page.data.some((r) => r.name !== self)) fields.push(field.name);
  }
  if (fields.length > 0) throw duplicate(doctype, fields);
}

/** The 409 `duplicate` answer naming `fields` of `doctype`. */
function duplicate(doctype: DocTypeDefinition, fields: readonly string[]): PlatformError {
  return new PlatformError('duplicate', 'Another record already has this value.', {
    status: 409,
    fields: fields.map((name) => ({
      field: name,
      code: 'duplicate',
      message: `${doctype.fields.find((f) => f.name === name)?.label ?? name} is already used by another record.`,
    })),
  });
}

/** PostgreSQL's `unique_violation`. */
const UNIQUE_VIOLATION = '23505';

/**
 * The 409 `duplicate` for a write the database refused because one of `doctype`'s unique indexes already
 * holds the value (a concurrent write took it between {@link checkUnique} and the write, which the check
 * alone cannot see), or undefined for any other error. The answer names the field, never the value the
 * database's error detail carries.
 */
export function duplicateRefusal(doctype: DocTypeDefinition, err: unknown): PlatformError | undefined {
  const { code, constraint } = (err ?? {}) as { code?: unknown; constraint?: unknown };
  if (code !== UNIQUE_VIOLATION || typeof constraint !== 'string') return undefined;
  const field = uniqueFields(doctype).find((f) => uniqueIndexName(doctype.name, f) === constraint);
  return field === undefined ? undefined : duplicate(doctype, [field]);
}

/**
 * 422 `link_not_found` (one field error per broken link) when a Link field names a record that does not
 * exist; 503 `service_unavailable` when the owner of a linked DocType cannot be asked now.
 */
export async function checkLinks(
  deps: IntegrityDeps,
  doctype: DocTypeDefinition,
  data: Record<string, unknown>,
  principal: Principal | undefined,
): Promise<void> {
  const resolver = linkResolver(deps);
  const fields: FieldError[] = [];
  for (const field of doctype.fields) {
    const value = data[field.name];
    if (!field.link || typeof value !== 'string' || value === '') continue;
    const exists = await resolver.exists(field.link, value, principal);
    if (exists === undefined) {
      throw new PlatformError('service_unavailable', 'A linked record could not be checked now. Try again.', {
        status: 503,
      });
    }
    if (!exists) {
      fields.push({ field: field.name, code: 'link_not_found', message: `${field.label}: no such record.` });
    }
  }
  if (fields.length > 0) {
    throw new PlatformError('link_not_found', 'A linked record does not exist.', { status: 422, fields });
  }
}

/** 409 `linked` when a record of this service links to `name` of `doctype` (delete those links first). */
export async function checkNotLinked(
  deps: IntegrityDeps,
  doctype: DocTypeDefinition,
  name: string,
): Promise<void> {
  for (const other of deps.doctypes.list()) {
    for (const field of other.fields) {
      if (field.link !== doctype.name) continue;
      if ((await deps.records.count(other.name, { [field.name]: name })) > 0) {
        throw new PlatformError('linked', `Records of ${other.label} link to this record.`, { status: 409 });
      }
    }
  }
}
