/**
 * Runs an import: the rows not yet settled, in file order and in batches; each batch is checked with the
 * data API's rules (row-check.ts) and settled in one commit (import-store.ts), then the records created are
 * told to the record observers (history), as the data API's creates are. A run stopped between batches, or
 * by a stopped process, is resumed by running the same plan again.
 */

import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { IntegrityDeps } from '../data/integrity';
import { notifyWritten, type RecordObserver } from '../data/record-observer';
import type { Principal } from '../http/env';
import type { RecordAccess } from '../permissions/record-access';
import type { CsvTable } from './csv';
import type { ImportJob, ImportStore, SettledRow } from './import-store';
import type { ColumnMapping } from './mapping';
import { RowChecker } from './row-check';

/** Rows settled per commit unless configured otherwise. */
export const DEFAULT_IMPORT_BATCH = 100;

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
  const checker = new RowChecker({
    integrity: deps.integrity,
    doctype: plan.doctype,
    mapping: plan.mapping,
    access: plan.access,
    principal: plan.principal,
  });
  let done = 0;
  for (let start = 0; start < pending.length; start += batchSize) {
    hooks.signal?.throwIfAborted();
    const batch: SettledRow[] = [];
    for (const row of pending.slice(start, start + batchSize)) {
      const outcome = await checker.check(row);
      batch.push(outcome.ok ? { row: outcome.row, data: outcome.data } : outcome);
    }
    const created = await deps.imports.settle(plan.job.id, plan.doctype, batch);
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
