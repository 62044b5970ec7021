import { closeSync, fdatasync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
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
  readonly #fd: number;
  readonly #group: GroupSync;
  #closed = false;

  /** Opens (creating) the journal at `path`; `syncFile` syncs its data (default `fdatasync`). */
  constructor(
    readonly path: string,
    syncFile: (fd: number) => Promise<void> = fdatasyncAsync,
  ) {
    this.#fd = openSync(path, 'a+', 0o600);
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
    writeSync(this.#fd, `${entries.map((e) => JSON.stringify(e)).join('\n')}\n`);
    return this.#group.sync();
  }

  /** Empties the journal: every entry it held is stored elsewhere. */
  clear(): void {
    ftruncateSync(this.#fd, 0);
  }

  /** Waits for a sync in progress and closes the file. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#group.settled();
    closeSync(this.#fd);
  }
}
