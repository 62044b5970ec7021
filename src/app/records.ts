import type { z } from 'zod';
import type { AppContext } from '../../backend/context';
import type { DocTypeDefinition } from '../../backend/doctypes/define-doctype';

/** A stored record of DocType `D`: its model's fields plus the record's `name` (its id). */
export type RecordOf<D extends DocTypeDefinition> = z.output<D['model']> & { name: string };

/** The body that creates a record of DocType `D` (defaults may be left out). */
export type CreateBodyOf<D extends DocTypeDefinition> = z.input<D['model']>;

/** The body that updates a record of DocType `D`: any subset of its fields. */
export type UpdateBodyOf<D extends DocTypeDefinition> = Partial<z.input<D['model']>>;

/**
 * The number of records of `doctype` whose fields equal `equals` (every given field), for RPC methods such
 * as a dashboard count. `ctx` is the `ctx` an RPC method receives.
 */
export function countRecords(
  ctx: Pick<AppContext, 'records'>,
  doctype: string,
  equals: Record<string, unknown> = {},
): Promise<number> {
  return ctx.records.count(doctype, equals);
}
