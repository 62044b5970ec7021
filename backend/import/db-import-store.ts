/**
 * Imports in the platform database: `imports` (one row per import) and `import_rows` (one row per settled
 * row, primary key (import id, row number)). A batch's records and its `import_rows` are written in one
 * transaction: a process stopped at any point leaves each row either settled with its record or not
 * touched, and a row already settled is never inserted again (a second writer of the same row fails on the
 * primary key and its whole batch rolls back). No cell value is kept: a failed row keeps its problems,
 * whose messages never hold the value (backend/data/validate.ts).
 */

import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { DocRecord, RecordStore } from '../data/records';
import type { Database } from '../db/database';
import type { ImportCounts, ImportJob, ImportStore, SettledRow } from './import-store';
import type { RowProblem } from './row-check';

const IMPORTS_SQL = `
  CREATE TABLE IF NOT EXISTS imports (
    id          text PRIMARY KEY,
    doctype     text NOT NULL,
    owner       text NOT NULL,
    fingerprint text NOT NULL,
    total       integer NOT NULL,
    created     timestamptz NOT NULL DEFAULT now(),
    finished    timestamptz
  );
  CREATE TABLE IF NOT EXISTS import_rows (
    import_id text NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
    row_no    integer NOT NULL,
    record    text,
    problems  jsonb,
    PRIMARY KEY (import_id, row_no)
  );
`;

interface JobRow {
  id: string;
  doctype: string;
  owner: string;
  fingerprint: string;
  total: number;
  finished: string | Date | null;
}

function toJob(row: JobRow): ImportJob {
  const { finished, ...rest } = row;
  return { ...rest, total: Number(rest.total), finished: finished !== null };
}

/** See the module comment. `recordsOver` is the record store of the process, over a given handle. */
export class DbImportStore implements ImportStore {
  constructor(
    private readonly db: Pick<Database, 'query' | 'exec' | 'transaction'>,
    private readonly recordsOver: (handle: Pick<Database, 'query'>) => RecordStore,
  ) {}

  /** Creates the tables (idempotent). */
  async migrate(): Promise<void> {
    await this.db.exec(IMPORTS_SQL);
  }

  async open(job: Omit<ImportJob, 'finished'>): Promise<ImportJob> {
    await this.db.query(
      `INSERT INTO imports (id, doctype, owner, fingerprint, total) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO NOTHING`,
      [job.id, job.doctype, job.owner, job.fingerprint, job.total],
    );
    return (await this.get(job.id))!;
  }

  async get(id: string): Promise<ImportJob | undefined> {
    const { rows } = await this.db.query<JobRow>(
      'SELECT id, doctype, owner, fingerprint, total, finished FROM imports WHERE id = $1',
      [id],
    );
    return rows[0] && toJob(rows[0]);
  }

  async settledRows(id: string): Promise<Set<number>> {
    const { rows } = await this.db.query<{ row_no: number }>(
      'SELECT row_no FROM import_rows WHERE import_id = $1',
      [id],
    );
    return new Set(rows.map((r) => Number(r.row_no)));
  }

  async counts(id: string): Promise<ImportCounts> {
    const { rows } = await this.db.query<{ created: string | number; failed: string | number }>(
      `SELECT count(record) AS created, count(problems) AS failed FROM import_rows WHERE import_id = $1`,
      [id],
    );
    return { created: Number(rows[0]?.created ?? 0), failed: Number(rows[0]?.failed ?? 0) };
  }

  async problems(id: string, limit: number): Promise<RowProblem[]> {
    const { rows } = await this.db.query<{ problems: RowProblem[] | string }>(
      `SELECT problems FROM import_rows WHERE import_id = $1 AND problems IS NOT NULL ORDER BY row_no LIMIT $2`,
      [id, limit],
    );
    return rows
      .flatMap((r) => (typeof r.problems === 'string' ? JSON.parse(r.problems) : r.problems) as RowProblem[])
      .slice(0, limit);
  }

  settle(id: string, doctype: DocTypeDefinition, rows: readonly SettledRow[]): Promise<DocRecord[]> {
    return this.db.transaction(async (tx) => {
      const settled = await tx.query<{ row_no: number }>(
        'SELECT row_no FROM import_rows WHERE import_id = $1 AND row_no = ANY($2::int[])',
        [id, rows.map((r) => r.row)],
      );
      const done = new Set(settled.rows.map((r) => Number(r.row_no)));
      // Created records are credited to whoever started the import, as their own create would be.
      const started = await tx.query<{ owner: string }>('SELECT owner FROM imports WHERE id = $1', [id]);
      const owner = started.rows[0]?.owner || undefined;
      const records = this.recordsOver(tx);
      const created: DocRecord[] = [];
      for (const row of rows) {
        if (done.has(row.row)) continue;
        done.add(row.row);
        if ('problems' in row) {
          await tx.query('INSERT INTO import_rows (import_id, row_no, problems) VALUES ($1, $2, $3::jsonb)', [
            id,
            row.row,
            JSON.stringify(row.problems),
          ]);
          continue;
        }
        const record = await records.insert(doctype, row.data, owner);
        await tx.query('INSERT INTO import_rows (import_id, row_no, record) VALUES ($1, $2, $3)', [
          id,
          row.row,
          record.name,
        ]);
        created.push(record);
      }
      return created;
    });
  }

  async finish(id: string): Promise<void> {
    await this.db.query('UPDATE imports SET finished = now() WHERE id = $1 AND finished IS NULL', [id]);
  }
}
