import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { ReadCompanion } from '../data/records';
import type { Database } from '../db/database';
import { embeddedDatabase } from '../db/embedded';
import { AuditJournal } from './audit-journal';
import {
  AUDIT_SQL,
  batchInsertSql,
  COLUMNS,
  companionInsert,
  insertSql,
  type Row,
  toEntry,
} from './audit-sql';
import type { AuditQuery, AuditStore } from './audit-store';
import { type AuditEntry, type AuditFacts, chain, GENESIS_HASH, type Sha256Hex } from './chain';

/** Node's native SHA-256: the same hashes as the portable one (`m audit verify` checks with that). */
const nodeSha256: Sha256Hex = (text) => createHash('sha256').update(text).digest('hex');

export type { AuditQuery };

/** The most entries loaded into the table by one INSERT (its 11 array parameters hold one element each). */
const BATCH = 500;
/** How long entries wait in the journal for more to load with them (docs/operators.md#the-audit-log). */
const LOAD_DELAY_MS = 50;

/** The size beyond which a journal that is never empty after a load is rewritten with what still waits. */
const JOURNAL_REWRITE_BYTES = 1 << 20;

/** How an embedded database's log appends: to the journal, loaded into the table in batches. */
interface Journalled {
  journal: AuditJournal;
  /** Entries chained and journalled, not yet in the table, in chain order. */
  pending: AuditEntry[];
  loading: Promise<void> | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** How many times an append retries after another process extended the chain first. */
const APPEND_ATTEMPTS = 5;

/** PostgreSQL's `unique_violation`: the `seq` this process computed was taken. */
function isTaken(err: unknown): boolean {
  return (err as { code?: unknown } | undefined)?.code === '23505';
}

/**
 * The audit log of personal data revealed (docs/operators.md#the-audit-log): durable (a table of the
 * platform database), append-only, each entry chained to the previous by hash. An append is one INSERT:
 * this process keeps the head of the chain in memory and serialises its own appends; `seq` is the primary
 * key, so if another process sharing the database extended the chain first the INSERT fails, the head is
 * read again and the entries re-chained, and no fork of the chain is ever stored. The reveal of one record
 * appends in the statement that reads it ({@link companion}), under the same rules. Opened over an embedded
 * database on disk ({@link AuditLog.open}), an append is instead a synced line of the audit journal, and
 * the table receives the entries in batches.
 */
export class AuditLog implements AuditStore {
  #head: { seq: number; hash: string } | undefined;
  #tail: Promise<unknown> = Promise.resolve();
  readonly #database: object;
  #journalled: Journalled | undefined;

  /** A log appending to the table itself (any database); {@link AuditLog.open} picks the journal where it can. */
  constructor(private readonly db: Pick<Database, 'query' | 'exec'> & Partial<Pick<Database, 'identity'>>) {
    this.#database = db.identity ?? db;
  }

  /**
   * The log of `db`, its table created. Over an embedded database on disk, which this process alone writes, an
   * append goes to the audit journal beside it (synced before the read is answered) and reaches the table
   * in batches off the request path; entries a crash left in the journal are loaded first. Over PostgreSQL,
   * which several processes may share, and over a database in memory, which nothing outlives, every append
   * is a statement of its own on the table (a reveal's rides on the read of its record).
   */
  static async open(
    db: Pick<Database, 'query' | 'exec'> & Partial<Pick<Database, 'identity'>>,
  ): Promise<AuditLog> {
    const log = new AuditLog(db);
    await log.migrate();
    const dir = embeddedDatabase(db)?.dir;
    if (!dir) return log;
    const journal = new AuditJournal(join(dirname(dir), 'audit.journal'));
    try {
      const head = await log.#readHead();
      const missing = journal.entries().filter((e) => e.seq > head.seq);
      for (let i = 0; i < missing.length; i += BATCH) {
        await db.query(...batchInsertSql(missing.slice(i, i + BATCH)));
      }
      journal.clear();
      const last = missing.at(-1);
      log.#head = last ? { seq: last.seq, hash: last.hash } : head;
    } catch (err) {
      await journal.close();
      throw err;
    }
    log.#journalled = { journal, pending: [], loading: undefined, timer: undefined };
    return log;
  }

  /** Creates the table (for a database opened before this module registered its migration). */
  async migrate(): Promise<void> {
    await this.db.exec(AUDIT_SQL);
  }

  /** Appends `facts` as consecutive entries, in one statement; returns them chained. */
  append(facts: readonly AuditFacts[]): Promise<AuditEntry[]> {
    if (facts.length === 0) return Promise.resolve([]);
    if (this.#journalled) return this.#journal(this.#journalled, facts);
    return this.#serialised(() =>
      this.#chained(facts, async (entries) => {
        await this.db.query(...insertSql(entries));
        return { value: entries, inserted: true };
      }),
    );
  }

  /**
   * `facts` appended by the statement that reads their record ({@link ReadCompanion}): chained like
   * {@link append}, in its order, and retried the same way when another process took the `seq`.
   * `appended` is called once they are stored; a read that found no record stores none and leaves the
   * head where it was. The reveal observer offers it for the read of one record (backend/audit).
   */
  companion(facts: readonly AuditFacts[], appended: () => void): ReadCompanion | undefined {
    // A journalled append costs less than an INSERT on the read: the read is then a plain SELECT.
    if (this.#journalled) return undefined;
    return {
      database: this.#database,
      run: (read) =>
        this.#serialised(() =>
          this.#chained(facts, async (entries) => {
            const result = await read(companionInsert(entries));
            if (result.inserted) appended();
            return result;
          }),
        ),
    };
  }

  /**
   * Chains `facts` after the head and writes them to the journal at once, so the journal holds the chain in
   * order without waiting on another append's sync; resolves once they are synced.
   */
  async #journal(state: Journalled, facts: readonly AuditFacts[]): Promise<AuditEntry[]> {
    const entries = chain(this.#head!, facts, nodeSha256);
    const synced = state.journal.append(entries);
    const last = entries[entries.length - 1]!;
    this.#head = { seq: last.seq, hash: last.hash };
    state.pending.push(...entries);
    if (state.pending.length >= BATCH) this.#loadBatch(state);
    else this.#scheduleLoad(state);
    await synced;
    return entries;
  }

  /** Loads what is waiting in `LOAD_DELAY_MS`, unless a load is already due. */
  #scheduleLoad(state: Journalled): void {
    state.timer ??= setTimeout(() => {
      state.timer = undefined;
      this.#loadBatch(state);
    }, LOAD_DELAY_MS);
  }

  /**
   * Loads one batch of what is waiting, off the request path. Entries journalled during the load wait for
   * the next one, `LOAD_DELAY_MS` later, with those that follow them: a load that went straight on to them
   * would load the entries of a steady stream of reveals one `INSERT` each. A failed load is tried again.
   */
  #loadBatch(state: Journalled): void {
    if (state.loading || state.pending.length === 0) return;
    state.loading = this.#load(state)
      .catch(() => {})
      .finally(() => {
        state.loading = undefined;
        if (state.pending.length > 0) this.#scheduleLoad(state);
      });
  }

  /** Loads every journalled entry into the table (a no-op for a log appending to the table itself). */
  async flush(): Promise<void> {
    const state = this.#journalled;
    if (!state) return;
    clearTimeout(state.timer);
    state.timer = undefined;
    while (state.pending.length > 0 || state.loading) {
      if (!state.loading) {
        state.loading = this.#load(state).finally(() => {
          state.loading = undefined;
        });
      }
      await state.loading;
    }
  }

  async #load(state: Journalled): Promise<void> {
    const batch = state.pending.slice(0, BATCH);
    await this.db.query(...batchInsertSql(batch));
    state.pending.splice(0, batch.length);
    // Only when no entry is waiting: one journalled meanwhile is in the journal alone. A journal that a
    // steady stream of reveals never leaves empty is rewritten with the waiting entries once it is large.
    if (state.pending.length === 0) state.journal.clear();
    else if (state.journal.size >= JOURNAL_REWRITE_BYTES) state.journal.rewrite(state.pending);
  }

  /** Loads what the journal holds into the table and closes it. */
  async close(): Promise<void> {
    const state = this.#journalled;
    if (!state) return;
    try {
      await this.flush();
    } finally {
      clearTimeout(state.timer);
      state.timer = undefined;
      await state.journal.close();
    }
  }

  /** Runs `work` after every append this process started before it. */
  #serialised<T>(work: () => Promise<T>): Promise<T> {
    const done = this.#tail.then(work);
    this.#tail = done.catch(() => undefined);
    return done;
  }

  /**
   * Chains `facts` after the head and runs `write` with the entries; the head moves on when `write` says
   * they were inserted. A `seq` already taken (another process's append) re-reads the head and retries.
   */
  async #chained<T>(
    facts: readonly AuditFacts[],
    write: (entries: AuditEntry[]) => Promise<{ value: T; inserted: boolean }>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      this.#head ??= await this.#readHead();
      const entries = chain(this.#head, facts, nodeSha256);
      let result: { value: T; inserted: boolean };
      try {
        result = await write(entries);
      } catch (err) {
        this.#head = undefined;
        if (isTaken(err) && attempt < APPEND_ATTEMPTS) continue;
        throw err;
      }
      if (result.inserted) {
        const last = entries[entries.length - 1]!;
        this.#head = { seq: last.seq, hash: last.hash };
      }
      return result.value;
    }
  }

  async #readHead(): Promise<{ seq: number; hash: string }> {
    const { rows } = await this.db.query<{ seq: string | number; hash: string }>(
      'SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1',
    );
    return rows[0] ? { seq: Number(rows[0].seq), hash: rows[0].hash } : { seq: 0, hash: GENESIS_HASH };
  }

  /** Entries matching every given filter, in chain order (or newest first), and how many match in all. */
  async list(query: AuditQuery = {}): Promise<{ data: AuditEntry[]; total: number }> {
    await this.flush();
    const { clause, params } = whereOf({ ...query, pastSeq: undefined });
    const count = await this.db.query<{ n: string | number }>(
      `SELECT count(*) AS n FROM audit_log ${clause}`,
      params,
    );
    return { data: await this.#select(query), total: Number(count.rows[0]?.n ?? 0) };
  }

  /** The entries of {@link list}, uncounted. */
  async page(query: AuditQuery = {}): Promise<AuditEntry[]> {
    await this.flush();
    return this.#select(query);
  }

  async #select(query: AuditQuery): Promise<AuditEntry[]> {
    const { clause, params } = whereOf(query);
    params.push(query.limit ?? 100, query.start ?? 0);
    const { rows } = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM audit_log ${clause} ORDER BY seq ${query.newestFirst ? 'DESC' : 'ASC'} LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    return rows.map(toEntry);
  }

  /** Every entry in chain order, a page at a time (for verification of a large log). */
  async *entries(pageSize = 1000): AsyncGenerator<AuditEntry> {
    await this.flush();
    let past: number | undefined;
    for (;;) {
      const page = await this.#select({ pastSeq: past, limit: pageSize });
      yield* page;
      if (page.length < pageSize) return;
      past = page[page.length - 1]!.seq;
    }
  }
}

/** The `WHERE` clause of `query`'s filters (empty when none) and its parameters, numbered from `$1`. */
function whereOf(query: AuditQuery): { clause: string; params: unknown[] } {
  const params: unknown[] = [];
  const where: string[] = [];
  const test = (sql: (param: string) => string, value: unknown) => {
    if (value === undefined) return;
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  test((p) => `doctype = ${p}`, query.doctype);
  test((p) => `record = ${p}`, query.record);
  test((p) => `"user" = ${p}`, query.user);
  test((p) => `at >= ${p}::timestamptz`, query.from);
  test((p) => `at < ${p}::timestamptz`, query.to);
  test((p) => `seq ${query.newestFirst ? '<' : '>'} ${p}`, query.pastSeq);
  return { clause: where.length > 0 ? `WHERE ${where.join(' AND ')}` : '', params };
}
