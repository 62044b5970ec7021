import {
  closeSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { GroupSync } from '../db/group-sync';
import type { AuditEntry } from './chain';

const fdatasyncAsync = promisify(fdatasync);

/**
 * The audit journal of an embedded database (docs/operators.md#the-audit-log): a file beside the database
 * the entries of reveals are appended to, one JSON line each, and synced before the read that revealed
 * is answered. It holds only entries not yet loaded into the `audit_log` table; once they are there (and
 * the database's WAL synced), it is emptied. A line the journal cannot parse is the last one, torn by a
 * crash in the middle of its write: its sync never finished, so its read was never answered.
 *
 * Appends write at once and share syncs: callers that ask while a sync runs wait for the next one, which
 * covers all of them (group commit, as the database's WAL sync does).
 */
export class AuditJournal {
  #fd: number;
  /** Bytes the file holds (written since it was last emptied or rewritten). */
  #size = 0;
  readonly #group: GroupSync;
  #closed = false;

  /** Opens (creating) the journal at `path`; `syncFile` syncs its data (default `fdatasync`). */
  constructor(
    readonly path: string,
    syncFile: (fd: number) => Promise<void> = fdatasyncAsync,
  ) {
    this.#fd = openSync(path, 'a+', 0o600);
    this.#size = fstatSync(this.#fd).size;
    this.#group = new GroupSync(() => syncFile(this.#fd));
  }

  /** The entries the journal holds, in the order written. */
  entries(): AuditEntry[] {
    const out: AuditEntry[] = [];
    for (const line of readFileSync(this.path, 'utf8').split('\n')) {
      if (line === '') continue;
      try {
        out.push(JSON.parse(line) as AuditEntry);
      } catch {
        break;
      }
    }
    return out;
  }

  /** Writes `entries` at the end of the journal now; the promise resolves once they are on stable storage. */
  append(entries: readonly AuditEntry[]): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the audit journal is closed'));
    this.#size += writeSync(this.#fd, lines(entries));
    return this.#group.sync();
  }

  /** The bytes the journal holds. */
  get size(): number {
    return this.#size;
  }

  /** Empties the journal: every entry it held is stored elsewhere. */
  clear(): void {
    ftruncateSync(this.#fd, 0);
    this.#size = 0;
  }

  /**
   * Replaces the journal by one holding only `entries` (those not stored elsewhere yet), so a journal that
   * reveals never leave empty does not grow without end. Atomic: the new file is written and synced beside
   * the journal, then renamed over it and the folder synced, all before any other append can run; a crash
   * leaves either file whole. Syncs under way finish on the old file, which is closed after them.
   */
  rewrite(entries: readonly AuditEntry[]): void {
    const next = `${this.path}.next`;
    const fd = openSync(next, 'w', 0o600);
    let size = 0;
    try {
      if (entries.length > 0) size = writeSync(fd, lines(entries));
      fdatasyncSync(fd);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    closeSync(fd);
    renameSync(next, this.path);
    const dir = openSync(dirname(this.path), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    const old = this.#fd;
    this.#fd = openSync(this.path, 'a+', 0o600);
    this.#size = size;
    void this.#group.settled().then(() => closeSync(old));
  }

  /** Waits for a sync in progress and closes the file. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#group.settled();
    closeSync(this.#fd);
  }
}

/** `entries` as the journal's lines. */
function lines(entries: readonly AuditEntry[]): string {
  return `${entries.map((e) => JSON.stringify(e)).join('\n')}\n`;
}
