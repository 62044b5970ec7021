import type { z } from 'zod';
import type { DocTypeDefinition } from './doctype';

/**
 * A record as the data API returns it: its fields plus `name`, `creation` and `modified` (ISO 8601), and
 * `modified_by`, the user whose write stored this version (absent for records stored before it was kept,
 * and for records no request wrote).
 */
export type DocRecord = Record<string, unknown> & {
  name: string;
  creation: string;
  modified: string;
  modified_by?: string;
};

/** A stored record of DocType `D`: its model's fields plus the record's `name` (its id). */
export type RecordOf<D extends DocTypeDefinition> = z.output<D['model']> & { name: string };

/** The body that creates a record of DocType `D` (defaults may be left out). */
export type CreateBodyOf<D extends DocTypeDefinition> = z.input<D['model']>;

/** The body that updates a record of DocType `D`: any subset of its fields. */
export type UpdateBodyOf<D extends DocTypeDefinition> = Partial<z.input<D['model']>>;

/** Options of a sum over records. */
export interface SumOptions {
  /** Only records whose text field `field` is one of `values`. */
  whereIn?: { field: string; values: readonly string[] };
}

/**
 * What app code may read of its own app's records (an RPC method's `records`). Every call names a DocType
 * of the calling app; another app's DocType is refused with `unknown_doctype`, so a service never reaches
 * into data it does not own (in MACROSERVICE that data is not even in its database).
 */
export interface AppRecords {
  /** The record, or undefined. */
  get(doctype: string, name: string): Promise<DocRecord | undefined>;
  /** How many records of `doctype` have every field of `equals` equal to the given value. */
  count(doctype: string, equals?: Record<string, unknown>): Promise<number>;
  /** Sum over the records of `doctype` of the product of the numeric `fields` (missing values count 0). */
  sum(doctype: string, fields: readonly string[], options?: SumOptions): Promise<number>;
}

/**
 * The number of records of `doctype` whose fields equal `equals` (every given field), for RPC methods such
 * as a dashboard count. `services` is what an RPC method receives (or anything with its `records`).
 */
export function countRecords(
  services: { readonly records: Pick<AppRecords, 'count'> },
  doctype: string,
  equals: Record<string, unknown> = {},
): Promise<number> {
  return services.records.count(doctype, equals);
}
