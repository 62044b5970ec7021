import type { DocTypeDefinition } from '../../src/contract/doctype';
import { flaggedFieldNames } from '../../src/protocol';
import type { Filter, ListQuery } from '../data/list-query';
import type { DocRecord, ReadView, RecordStore, SumOptions, WriteCompanion } from '../data/records';
import { PII_MASK } from '../permissions/mask';
import type { Transaction } from '../security/idempotency/idempotency-store';
import { BLIND_INDEX_SUFFIX, blindIndexKey } from './blind-index';
import { isCiphertext } from './field-cipher';
import { BLIND_INDEX_OPS, notQueryable, refuseFlaggedSum } from './flagged-queries';
import type { VaultKeys } from './vault-keys';

/** Finds a DocType's definition by name (the registry), for the calls that name a DocType by string. */
export type DocTypeByName = (name: string) => DocTypeDefinition | undefined;

/** Whether `key` is the stored blind index of one of the `flagged` fields. */
function isBlindIndex(flagged: ReadonlySet<string>, key: string): boolean {
  return key.endsWith(BLIND_INDEX_SUFFIX) && flagged.has(key.slice(0, -BLIND_INDEX_SUFFIX.length));
}

/**
 * Whether `record` holds a ciphertext or a blind index of one of its flagged fields (`indexKeys`: each
 * field and its index's key): not so for a page whose store already left them out (masked fields, blind
 * indexes; see `ReadView.omit`), which is then returned as it is, uncopied.
 */
function sealed(indexKeys: readonly [string, string][], record: DocRecord): boolean {
  for (const [field, index] of indexKeys) {
    if (isCiphertext(record[field]) || index in record) return true;
  }
  return false;
}

/**
 * A {@link RecordStore} that keeps the values of `pii` and `encrypted` fields as ciphertext in the store it
 * wraps (docs/security.md#personal-data-at-rest), with a blind index beside each for equality filters.
 * Routes and the database store are unchanged: this decorator encrypts on the way in, decrypts on the way
 * out, turns equality filters on flagged fields into filters on their blind index, and refuses sorting,
 * comparisons and patterns on them (400 `field_encrypted`). A value that fails its integrity check (moved
 * from another record or field, edited) is 500 `integrity_failed`, never shown. Values stored in clear
 * before encryption was enabled are returned as they are.
 */
export class EncryptedRecordStore implements RecordStore {
  /** Per definition: its flagged fields, and the definition the wrapped store sees (blind indexes added). */
  readonly #shapes = new WeakMap<
    DocTypeDefinition,
    { flagged: Set<string>; stored: DocTypeDefinition; indexKeys: [field: string, index: string][] }
  >();

  constructor(
    private readonly inner: RecordStore,
    private readonly keys: VaultKeys,
    private readonly doctypeNamed: DocTypeByName,
  ) {}

  #shape(doctype: DocTypeDefinition) {
    let shape = this.#shapes.get(doctype);
    if (!shape) {
      const flagged = new Set(flaggedFieldNames(doctype));
      // The blind indexes are text fields of the stored shape, so the wrapped store filters on them with
      // the same validated, parameterised SQL as on any field.
      const indexes = [...flagged].map((name) => ({
        name: blindIndexKey(name),
        type: 'string' as const,
        label: blindIndexKey(name),
        required: false,
      }));
      const stored = flagged.size === 0 ? doctype : { ...doctype, fields: [...doctype.fields, ...indexes] };
      shape = {
        flagged,
        stored,
        indexKeys: [...flagged].map((f) => [f, blindIndexKey(f)] as [string, string]),
      };
      this.#shapes.set(doctype, shape);
    }
    return shape;
  }

  /** The stored form of `data` for record `name`: flagged values encrypted, blind indexes beside them. */
  #seal(doctype: DocTypeDefinition, name: string | undefined, data: Record<string, unknown>) {
    const { flagged } = this.#shape(doctype);
    const stored: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(data)) {
      if (!flagged.has(field) || value === undefined || value === null) {
        stored[field] = value;
        continue;
      }
      stored[blindIndexKey(field)] = this.keys.blindIndex.of(doctype.name, field, value);
      if (name !== undefined) {
        stored[field] = this.keys.cipher.encrypt(value, { doctype: doctype.name, record: name, field });
      }
    }
    return stored;
  }

  /**
   * The record as callers see it: flagged values decrypted, blind indexes dropped. A field the caller
   * receives masked (`view`) gets the mask without being decrypted: no data key is unwrapped for a reader
   * who is not shown the value.
   */
  #open(doctype: DocTypeDefinition, record: DocRecord, view?: ReadView): DocRecord {
    const { flagged, indexKeys } = this.#shape(doctype);
    if (flagged.size === 0 || !sealed(indexKeys, record)) return record;
    const masked = view?.masked ?? [];
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) {
      if (flagged.has(key) && isCiphertext(value) && masked.includes(key)) {
        out[key] = PII_MASK;
      } else if (flagged.has(key) && isCiphertext(value)) {
        out[key] = this.keys.cipher.decrypt(value, {
          doctype: doctype.name,
          record: record.name,
          field: key,
        });
      } else if (!isBlindIndex(flagged, key)) {
        out[key] = value;
      }
    }
    return out as DocRecord;
  }

  #filter(doctype: DocTypeDefinition, filter: Filter): Filter {
    const { flagged } = this.#shape(doctype);
    if (!flagged.has(filter.field)) return filter;
    if (!BLIND_INDEX_OPS.has(filter.op)) throw notQueryable(doctype, filter.field, `"${filter.op}"`);
    const index = (v: unknown) =>
      v === null ? null : this.keys.blindIndex.of(doctype.name, filter.field, v);
    const value = Array.isArray(filter.value) ? filter.value.map(index) : index(filter.value);
    return { field: blindIndexKey(filter.field), op: filter.op, value };
  }

  /**
   * One page of records; equality on flagged fields through their blind index. Fields `view` names as
   * masked come back as the mask, not decrypted.
   */
  async list(
    doctype: DocTypeDefinition,
    query: ListQuery,
    view?: ReadView,
  ): Promise<{ data: DocRecord[]; total: number }> {
    const { flagged, stored, indexKeys } = this.#shape(doctype);
    if (flagged.size === 0) return this.inner.list(doctype, query);
    for (const key of query.orderBy) {
      if (flagged.has(key.field)) throw notQueryable(doctype, key.field, 'sorted');
    }
    // A value's associated data names its record: a projection with a flagged field always carries `name`
    // (also what the audit of a reveal records).
    const addName = query.fields?.some((f) => flagged.has(f)) === true && !query.fields.includes('name');
    // The wrapped store may leave out what no caller gets: the blind indexes, and the ciphertexts of the
    // fields this caller receives masked (it returns the mask for those holding a value).
    const inner: ReadView = {
      masked: (view?.masked ?? []).filter((f) => flagged.has(f)),
      omit: indexKeys.map(([, index]) => index),
    };
    const page = await this.inner.list(
      stored,
      {
        ...query,
        fields: addName ? [...query.fields!, 'name'] : query.fields,
        filters: query.filters.map((f) => this.#filter(doctype, f)),
      },
      inner,
    );
    return { ...page, data: page.data.map((r) => this.#open(doctype, r, view)) };
  }

  /** The record, decrypted but for the fields `view` names as masked (the mask), or undefined. */
  async get(doctype: DocTypeDefinition, name: string, view?: ReadView): Promise<DocRecord | undefined> {
    const record = await this.inner.get(this.#shape(doctype).stored, name, view);
    return record && this.#open(doctype, record, view);
  }

  /**
   * Stores a new record. Its name is part of every value's associated data, so the values are encrypted
   * for the name the record gets: through {@link RecordStore.insertNamed} where the wrapped store has it
   * (one statement when its guess of the name holds), else the name is taken first
   * ({@link RecordStore.nextName}) and the record inserted under it. Plaintext never reaches the wrapped
   * store.
   */
  async insert(
    doctype: DocTypeDefinition,
    data: Record<string, unknown>,
    by?: string,
    name?: string,
  ): Promise<DocRecord> {
    const { flagged, stored } = this.#shape(doctype);
    if (flagged.size === 0) return this.inner.insert(doctype, data, by, name);
    if (name === undefined && this.inner.insertNamed) {
      const record = await this.inner.insertNamed(stored, (named) => this.#seal(doctype, named, data), by);
      return this.#written(doctype, record, data);
    }
    const named = name ?? (await this.inner.nextName(stored));
    const record = await this.inner.insert(stored, this.#seal(doctype, named, data), by, named);
    return this.#written(doctype, record, data);
  }

  /**
   * See {@link RecordStore.insertAlongside}: the values encrypted for the name the wrapped store guesses,
   * in the one statement that stores the record and the companions' rows. Undefined where the wrapped store
   * has no such statement or declines.
   */
  async insertAlongside(
    doctype: DocTypeDefinition,
    data: (name: string) => Record<string, unknown>,
    by: string | undefined,
    alongside: readonly WriteCompanion[],
  ): Promise<DocRecord | undefined> {
    if (!this.inner.insertAlongside) return undefined;
    const { flagged, stored } = this.#shape(doctype);
    if (flagged.size === 0) return this.inner.insertAlongside(doctype, data, by, alongside);
    const record = await this.inner.insertAlongside(
      stored,
      (named) => this.#seal(doctype, named, data(named)),
      by,
      alongside,
    );
    return record && this.#written(doctype, record, data(record.name));
  }

  /** See {@link RecordStore.updateAlongside}: flagged values encrypted for the record, as {@link update}. */
  async updateAlongside(
    doctype: DocTypeDefinition,
    name: string,
    data: Record<string, unknown>,
    by: string | undefined,
    alongside: readonly WriteCompanion[],
    keep: readonly string[] = [],
  ): Promise<DocRecord | undefined> {
    if (!this.inner.updateAlongside) return undefined;
    const { stored } = this.#shape(doctype);
    const record = await this.inner.updateAlongside(
      stored,
      name,
      this.#seal(doctype, name, data),
      by,
      alongside,
      this.#kept(doctype, keep),
    );
    return record && this.#written(doctype, record, data);
  }

  /** The stored keys of the fields `keep` names: each flagged field's blind index goes with it. */
  #kept(doctype: DocTypeDefinition, keep: readonly string[]): string[] {
    const { flagged } = this.#shape(doctype);
    return keep.flatMap((field) => (flagged.has(field) ? [field, blindIndexKey(field)] : [field]));
  }

  /** See {@link RecordStore.nextName}. */
  nextName(doctype: DocTypeDefinition): Promise<string> {
    return this.inner.nextName(this.#shape(doctype).stored);
  }

  /**
   * Replaces a record's fields, flagged values encrypted for it; the fields `keep` names keep their stored
   * ciphertexts and blind indexes, unopened.
   */
  async update(
    doctype: DocTypeDefinition,
    name: string,
    data: Record<string, unknown>,
    by?: string,
    keep: readonly string[] = [],
  ): Promise<DocRecord | undefined> {
    const { stored } = this.#shape(doctype);
    const sealedData = this.#seal(doctype, name, data);
    const record = await this.inner.update(stored, name, sealedData, by, this.#kept(doctype, keep));
    return record && this.#written(doctype, record, data);
  }

  /**
   * What a write answers: the record as stored, its flagged values the plaintext just written (`data`)
   * rather than decrypted back, blind indexes dropped. A stored value the write kept (not in `data`) is the
   * mask: it was not opened, and only a writer who gets it masked keeps one.
   */
  #written(doctype: DocTypeDefinition, record: DocRecord, data: Record<string, unknown>): DocRecord {
    const { flagged } = this.#shape(doctype);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) {
      if (flagged.has(key) && isCiphertext(value)) out[key] = key in data ? data[key] : PII_MASK;
      else if (flagged.has(key)) out[key] = value;
      else if (!isBlindIndex(flagged, key)) out[key] = value;
    }
    return out as DocRecord;
  }

  /**
   * A deleted record: its flagged values the mask, never opened. A delete's answer masks every one of them
   * (docs/permissions.md#reveals-are-audited) and its history entry names no field, so nothing needs them.
   */
  #deleted(doctype: DocTypeDefinition, record: DocRecord): DocRecord {
    return this.#open(doctype, record, { masked: [...this.#shape(doctype).flagged] });
  }

  /** See {@link RecordStore.deleteAlongside}: the deleted record returned masked, as {@link delete}. */
  async deleteAlongside(
    doctype: DocTypeDefinition,
    name: string,
    alongside: readonly WriteCompanion[],
  ): Promise<DocRecord | undefined> {
    if (!this.inner.deleteAlongside) return undefined;
    const record = await this.inner.deleteAlongside(this.#shape(doctype).stored, name, alongside);
    return record && this.#deleted(doctype, record);
  }

  /** Deletes a record and returns it, its flagged values masked ({@link #deleted}). */
  async delete(doctype: DocTypeDefinition, name: string): Promise<DocRecord | undefined> {
    const record = await this.inner.delete(this.#shape(doctype).stored, name);
    return record && this.#deleted(doctype, record);
  }

  /** The wrapped store's transaction, with values encrypted and decrypted as outside it. */
  atomically<T>(work: (store: RecordStore, tx: Transaction | undefined) => Promise<T>): Promise<T> {
    return this.inner.atomically((inner, tx) =>
      work(new EncryptedRecordStore(inner, this.keys, this.doctypeNamed), tx),
    );
  }

  /** Counts records; equality on flagged fields through their blind index. */
  count(doctype: string, equals: Record<string, unknown> = {}): Promise<number> {
    const definition = this.doctypeNamed(doctype);
    if (!definition) return this.inner.count(doctype, equals);
    return this.inner.count(doctype, this.#seal(definition, undefined, equals));
  }

  /** Sums numeric fields; a flagged field has no sum the database could compute. */
  sum(doctype: string, fields: readonly string[], options?: SumOptions): Promise<number> {
    const definition = this.doctypeNamed(doctype);
    if (definition) {
      refuseFlaggedSum(definition, this.#shape(definition).flagged, fields, options);
    }
    return this.inner.sum(doctype, fields, options);
  }
}
