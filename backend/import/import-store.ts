/**
 * Where imports keep their state, so that an import resumed after a stop (a crash, a restart, a lost
 * connection) continues where it was and never creates a row's record twice: each row of an import is
 * settled once, under the key (import id, row number), in the same commit as the record it creates.
 */

import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { DocRecord, RecordStore } from '../data/records';
import type { RowProblem } from './row-check';

/** An import as stored: what it is of, whose it is, and which file (a digest, never the file itself). */
export interface ImportJob {
  id: string;
  doctype: string;
  /** The user who started it: the only one who may follow or resume it. */
  owner: string;
  /** SHA-256 of the DocType, the file and the mapping: a resume must send the same. */
  fingerprint: string;
  /** Data rows of the file. */
  total: number;
  finished: boolean;
}

/** How far an import is: rows settled, of which created and failed. */
export interface ImportCounts {
  created: number;
  failed: number;
}

/** A row the import is about to settle: created from `data`, or failed with `problems`. */
export type SettledRow =
  | { row: number; data: Record<string, unknown> }
  | { row: number; problems: readonly RowProblem[] };

/** See the module comment. */
export interface ImportStore {
  /** Stores `job` unless an import of its id exists; returns the stored one. */
  open(job: Omit<ImportJob, 'finished'>): Promise<ImportJob>;
  get(id: string): Promise<ImportJob | undefined>;
  /** The row numbers of `id` already settled. */
  settledRows(id: string): Promise<Set<number>>;
  counts(id: string): Promise<ImportCounts>;
  /** The problems of the failed rows, in row order, at most `limit`. */
  problems(id: string, limit: number): Promise<RowProblem[]>;
  /**
   * Settles a batch in one commit: each row not yet settled either creates its record or keeps its
   * problems. Rows already settled are skipped. Returns the records created.
   */
  settle(id: string, doctype: DocTypeDefinition, rows: readonly SettledRow[]): Promise<DocRecord[]>;
  /** Marks the import finished. */
  finish(id: string): Promise<void>;
}

interface MemoryImport {
  job: ImportJob;
  rows: Map<number, { record?: string; problems?: readonly RowProblem[] }>;
}

/**
 * Imports in memory, over any record store (the offline mocks): one process, nothing to survive, so a batch
 * is settled row by row.
 */
export class MemoryImportStore implements ImportStore {
  readonly #imports = new Map<string, MemoryImport>();

  constructor(private readonly records: RecordStore) {}

  async open(job: Omit<ImportJob, 'finished'>): Promise<ImportJob> {
    const existing = this.#imports.get(job.id);
    if (existing) return { ...existing.job };
    this.#imports.set(job.id, { job: { ...job, finished: false }, rows: new Map() });
    return { ...job, finished: false };
  }

  async get(id: string): Promise<ImportJob | undefined> {
    const found = this.#imports.get(id);
    return found && { ...found.job };
  }

  async settledRows(id: string): Promise<Set<number>> {
    return new Set(this.#imports.get(id)?.rows.keys());
  }

  async counts(id: string): Promise<ImportCounts> {
    const rows = [...(this.#imports.get(id)?.rows.values() ?? [])];
    return { created: rows.filter((r) => r.record).length, failed: rows.filter((r) => r.problems).length };
  }

  async problems(id: string, limit: number): Promise<RowProblem[]> {
    const rows = [...(this.#imports.get(id)?.rows.entries() ?? [])].sort(([a], [b]) => a - b);
    return rows.flatMap(([, r]) => r.problems ?? []).slice(0, limit);
  }

  async settle(id: string, doctype: DocTypeDefinition, rows: readonly SettledRow[]): Promise<DocRecord[]> {
    const found = this.#imports.get(id);
    if (!found) throw new Error(`no import ${id}`);
    const created: DocRecord[] = [];
    for (const row of rows) {
      if (found.rows.has(row.row)) continue;
      if ('problems' in row) {
        found.rows.set(row.row, { problems: row.problems });
        continue;
      }
      // Credited to whoever started the import, as their own create would be.
      const record = await this.records.insert(doctype, row.data, found.job.owner || undefined);
      found.rows.set(row.row, { record: record.name });
      created.push(record);
    }
    return created;
  }

  async finish(id: string): Promise<void> {
    const found = this.#imports.get(id);
    if (found) found.job.finished = true;
  }
}
