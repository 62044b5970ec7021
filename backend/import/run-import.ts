/**
 * Runs an import: the rows not yet settled, in file order and in batches; each batch is checked with the
 * data API's rules (row-check.ts) and settled in one commit (import-store.ts), then the records created are
 * told to the record observers (history), as the data API's creates are. A run stopped between batches, or
 * by a stopped process, is resumed by running the same plan again.
 */

import type { DocTypeDefinition } from '../../src/contract/doctype';
import { duplicateRefusal, type IntegrityDeps } from '../data/integrity';
import { notifyWritten, type RecordObserver } from '../data/record-observer';
import type { Principal } from '../http/env';
import type { RecordAccess } from '../permissions/record-access';
import type { CsvTable } from './csv';
import type { ImportJob, ImportStore, SettledRow } from './import-store';
import type { ColumnMapping } from './mapping';
import { RowChecker } from './row-check';

/** Rows settled per commit unless configured otherwise. */
export const DEFAULT_IMPORT_BATCH = 100;

/**
 * How many times one batch is checked again after the database refused it for a `unique` value another
 * write stored after the check; each time, at least the row holding that value fails `duplicate`.
 */
const SETTLE_ATTEMPTS = 5;

/** What a run uses of the process. */
export interface ImportRunDeps {
  imports: ImportStore;
  integrity: IntegrityDeps;
  observers: readonly RecordObserver[];
  /** Rows per commit; default {@link DEFAULT_IMPORT_BATCH}. */
  batchSize?: number;
}

/** One import, ready to run: its stored job, the parsed file and mapping, and the caller's access. */
export interface ImportPlan {
  job: ImportJob;
  doctype: DocTypeDefinition;
  table: CsvTable;
  mapping: ColumnMapping[];
  access: RecordAccess;
  principal: Principal | undefined;
}

/** Hooks of a run. */
export interface ImportRunHooks {
  /** Checked before each batch: an aborted signal stops the run (rejects with its reason). */
  signal?: AbortSignal;
  /** Told after each batch is committed, with the rows settled by this run so far. */
  afterBatch?(settled: number): void;
}

/** Runs (or resumes) `plan` to its end; see the module comment. */
export async function runImport(
  deps: ImportRunDeps,
  plan: ImportPlan,
  hooks: ImportRunHooks = {},
): Promise<void> {
  const batchSize = deps.batchSize ?? DEFAULT_IMPORT_BATCH;
  const settled = await deps.imports.settledRows(plan.job.id);
  const pending = plan.table.rows.filter((r) => !settled.has(r.row));
  const newChecker = () =>
    new RowChecker({
      integrity: deps.integrity,
      doctype: plan.doctype,
      mapping: plan.mapping,
      access: plan.access,
      principal: plan.principal,
    });
  let checker = newChecker();
  const check = async (rows: typeof pending) => {
    const batch: SettledRow[] = [];
    for (const row of rows) {
      const outcome = await checker.check(row);
      batch.push(outcome.ok ? { row: outcome.row, data: outcome.data } : outcome);
    }
    return batch;
  };
  let done = 0;
  for (let start = 0; start < pending.length; start += batchSize) {
    hooks.signal?.throwIfAborted();
    const rows = pending.slice(start, start + batchSize);
    let batch = await check(rows);
    let created: Awaited<ReturnType<ImportStore['settle']>>;
    for (let attempt = 1; ; attempt++) {
      try {
        created = await deps.imports.settle(plan.job.id, plan.doctype, batch);
        break;
      } catch (err) {
        // Another write stored a `unique` value of this batch after it was checked (the unique index
        // refused the commit, of which nothing was kept): check the batch again, which now finds the
        // value stored and fails that row `duplicate`, as the data API answers its create. A new checker,
        // since the one that checked the batch remembers the batch's own values; earlier batches' are stored.
        if (attempt >= SETTLE_ATTEMPTS || !duplicateRefusal(plan.doctype, err)) throw err;
        checker = newChecker();
        batch = await check(rows);
      }
    }
    for (const record of created) {
      await notifyWritten(deps.observers, {
        kind: 'create',
        doctype: plan.doctype,
        name: record.name,
        after: record,
        principal: plan.principal,
      });
    }
    done += batch.length;
    hooks.afterBatch?.(done);
  }
  await deps.imports.finish(plan.job.id);
}
