import {
  closeSync,
  constants,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
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
 * The least length of the journal's file: zeros past its entries, written once, so that an append writes
 * into blocks the file already has and its `fdatasync` flushes those blocks alone, not the file's size and
 * block map too (about 40% less CPU per sync on the reference machine, docs/performance.md#the-audit-journals-syncs).
 * PostgreSQL fills its WAL segments with zeros for the same reason. 1 MiB holds some 3,000 entries.
 */
const PREALLOCATED_BYTES = 1 << 20;
const ZERO = 0;

/**
 * The audit journal of an embedded database (docs/operators.md#the-audit-log): a file beside the database
 * the entries of reveals are written to, one JSON line each, and synced before the read that revealed
 * is answered. It holds only entries not yet loaded into the `audit_log` table; once they are there (and
 * the database's WAL synced), it is emptied. A line the journal cannot parse is the last one, torn by a
 * crash in the middle of its write: its sync never finished, so its read was never answered.
 *
 * The file is kept at least {@link PREALLOCATED_BYTES} long, zeros after the entries, and emptying it writes
 * a zero byte at its start instead of truncating it; new entries are written from the start again, over what
 * was loaded. Its entries are therefore the lines before the first zero byte, up to the first line that
 * does not parse or whose `seq` does not follow the one before it: what lies past the entries written since
 * it was emptied (a line cut where a new one ended, older lines) holds entries the table already has.
 *
 * Appends share syncs: callers that ask while a sync runs wait for the next one, which covers all of them
 * (group commit, as the database's WAL sync does). An append's line is written to the file when the sync
 * that covers it starts, so a group of appends is one `write` as well as one `fdatasync`: its callers are
 * answered only after that sync either way, and a crash before it loses only lines whose reads were never
 * answered.
 */
export class AuditJournal {
  #fd: number;
  /**
   * Bytes of entries the journal holds (appended since it was last emptied or rewritten), in the file or
   * waiting in `#unwritten`: where the next goes.
   */
  #size = 0;
  /** Of `#size`, the bytes in the file; the rest are the lines of `#unwritten`, in order. */
  #written = 0;
  /** Lines appended since the last sync started: written by the next one, before it syncs. */
  #unwritten: Buffer[] = [];
  /** The file's length, zeros past the lines written (`#written`). */
  #length = 0;
  readonly #group: GroupSync;
  #closed = false;

  /** Opens (creating) the journal at `path`; `syncFile` syncs its data (default `fdatasync`). */
  constructor(
    readonly path: string,
    syncFile: (fd: number) => Promise<void> = fdatasyncAsync,
  ) {
    this.#fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
    this.#size = read(path).bytes;
    this.#written = this.#size;
    this.#length = fstatSync(this.#fd).size;
    this.#group = new GroupSync(async () => {
      this.#write();
      await syncFile(this.#fd);
    });
  }

  /** The entries the journal holds, in the order written. */
  entries(): AuditEntry[] {
    return read(this.path).entries;
  }

  /** Appends `entries` after the journal's entries; the promise resolves once they are on stable storage. */
  append(entries: readonly AuditEntry[]): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the audit journal is closed'));
    const text = Buffer.from(lines(entries));
    this.#unwritten.push(text);
    this.#size += text.length;
    return this.#group.sync();
  }

  /**
   * Writes the lines appended since the last sync started, in one `write`. If it fails (a full device) they
   * stay waiting and the sync fails, and so do the appends it covers (their reads answer an error); the
   * next sync writes them again. Their entries stay in the chain: the log may hold a reveal whose read
   * failed, never a read answered without its entry.
   */
  #write(): void {
    if (this.#unwritten.length === 0) return;
    const text = this.#unwritten.length === 1 ? this.#unwritten[0]! : Buffer.concat(this.#unwritten);
    const end = this.#written + text.length;
    // Zeros ahead of the entries, written before them: the sync that covers the entries covers these too.
    if (end + 1 > this.#length) this.#length = fillWithZeros(this.#fd, this.#length, end + 1);
    writeSync(this.#fd, text, 0, text.length, this.#written);
    this.#unwritten = [];
    this.#written = end;
  }

  /** The bytes of the entries the journal holds. */
  get size(): number {
    return this.#size;
  }

  /**
   * Empties the journal: every entry it held is stored elsewhere. Its first byte becomes a zero, unsynced: a
   * crash that undoes it leaves entries the table holds, which an open skips by their `seq`.
   */
  clear(): void {
    if (this.#size === 0) return;
    // Lines not written yet are of entries stored elsewhere too: they need not be written at all.
    this.#unwritten = [];
    if (this.#written > 0) writeSync(this.#fd, Buffer.of(ZERO), 0, 1, 0);
    this.#size = 0;
    this.#written = 0;
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
    let length = 0;
    try {
      if (entries.length > 0) size = writeSync(fd, lines(entries));
      length = fillWithZeros(fd, size, size + 1);
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
    this.#fd = openSync(this.path, constants.O_RDWR, 0o600);
    // `entries` are all the journal still needs, those waiting to be written included, and are synced.
    this.#unwritten = [];
    this.#size = size;
    this.#written = size;
    this.#length = length;
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

/**
 * Zero-fills `fd` from `from` to at least `atLeast` bytes, in steps of {@link PREALLOCATED_BYTES}; returns its
 * new length.
 */
function fillWithZeros(fd: number, from: number, atLeast: number): number {
  const length = Math.max(PREALLOCATED_BYTES, Math.ceil(atLeast / PREALLOCATED_BYTES) * PREALLOCATED_BYTES);
  if (length > from) writeSync(fd, Buffer.alloc(length - from), 0, length - from, from);
  return length;
}

/** The entries of the journal at `path` and the bytes they take (see {@link AuditJournal}). */
function read(path: string): { entries: AuditEntry[]; bytes: number } {
  const file = readFileSync(path);
  const zero = file.indexOf(ZERO);
  const text = file.subarray(0, zero === -1 ? file.length : zero);
  const entries: AuditEntry[] = [];
  let bytes = 0;
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf(0x0a, start);
    if (newline === -1) break; // a line cut short
    let entry: AuditEntry;
    try {
      entry = JSON.parse(text.toString('utf8', start, newline)) as AuditEntry;
    } catch {
      break;
    }
    const previous = entries.at(-1);
    if (typeof entry?.seq !== 'number' || (previous && entry.seq !== previous.seq + 1)) break;
    entries.push(entry);
    start = newline + 1;
    bytes = start;
  }
  return { entries, bytes };
}

/** `entries` as the journal's lines. */
function lines(entries: readonly AuditEntry[]): string {
  return `${entries.map((e) => JSON.stringify(e)).join('\n')}\n`;
}
