import type { Database } from '../db/database';
import { registerMigration } from '../db/migrations';
import type { AuditQuery, AuditStore } from './audit-store';
import { type AuditEntry, type AuditFacts, chain, GENESIS_HASH } from './chain';

// Append-only in the database too: UPDATE, DELETE and TRUNCATE raise. An operator who drops the trigger can
// still remove or edit rows; the hash chain is what detects that (`m audit verify`).
const AUDIT_SQL = `
  CREATE TABLE IF NOT EXISTS audit_log (
    seq            bigint PRIMARY KEY,
    at             timestamptz NOT NULL,
    "user"         text NOT NULL,
    via            text NOT NULL,
    doctype        text NOT NULL,
    record         text NOT NULL,
    fields         jsonb NOT NULL,
    route          text NOT NULL,
    client_address text,
    prev_hash      text NOT NULL,
    hash           text NOT NULL
  );
  CREATE INDEX IF NOT EXISTS audit_log_record ON audit_log (doctype, record, seq);
  CREATE INDEX IF NOT EXISTS audit_log_user ON audit_log ("user", seq);
  CREATE OR REPLACE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'audit_log is append-only'; END $$;
  CREATE OR REPLACE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change();
  CREATE OR REPLACE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change();
`;
registerMigration({ id: 'audit.log', sql: AUDIT_SQL });

export type { AuditQuery };

/** An entry as the database driver returns it: `seq` may come back as text, `at` as a Date. */
type Row = Omit<AuditEntry, 'seq' | 'at'> & { seq: string | number; at: Date | string };

const COLUMNS = 'seq, at, "user", via, doctype, record, fields, route, client_address, prev_hash, hash';

function toEntry(row: Row): AuditEntry {
  return { ...row, seq: Number(row.seq), at: new Date(row.at).toISOString() };
}

/**
 * One INSERT of `entries` with a row of parameters each: cheaper for the database than unpacking a JSON
 * document of them (most appends are one entry, a single record read), and a list's page stays well under
 * the protocol's 65,535 parameters (500 entries of 11).
 */
function insertSql(entries: readonly AuditEntry[]): [string, unknown[]] {
  const params: unknown[] = [];
  const rows = entries.map((e) => {
    const at = params.length;
    params.push(e.seq, e.at, e.user, e.via, e.doctype, e.record, JSON.stringify(e.fields), e.route);
    params.push(e.client_address, e.prev_hash, e.hash);
    const p = (i: number) => `$${at + i}`;
    return `(${p(1)}::bigint, ${p(2)}::timestamptz, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}::jsonb, ${p(8)}, ${p(9)}::text, ${p(10)}, ${p(11)})`;
  });
  return [`INSERT INTO audit_log (${COLUMNS}) VALUES ${rows.join(', ')}`, params];
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
 * read again and the entries re-chained, and no fork of the chain is ever stored.
 */
export class AuditLog implements AuditStore {
  #head: { seq: number; hash: string } | undefined;
  #tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly db: Pick<Database, 'query' | 'exec'>) {}

  /** Creates the table (for a database opened before this module registered its migration). */
  async migrate(): Promise<void> {
    await this.db.exec(AUDIT_SQL);
  }

  /** Appends `facts` as consecutive entries, in one statement; returns them chained. */
  append(facts: readonly AuditFacts[]): Promise<AuditEntry[]> {
    if (facts.length === 0) return Promise.resolve([]);
    const done = this.#tail.then(() => this.#appendNow(facts));
    this.#tail = done.catch(() => undefined);
    return done;
  }

  async #appendNow(facts: readonly AuditFacts[]): Promise<AuditEntry[]> {
    for (let attempt = 1; ; attempt++) {
      this.#head ??= await this.#readHead();
      const entries = chain(this.#head, facts);
      try {
        await this.db.query(...insertSql(entries));
      } catch (err) {
        this.#head = undefined;
        if (isTaken(err) && attempt < APPEND_ATTEMPTS) continue;
        throw err;
      }
      const last = entries[entries.length - 1]!;
      this.#head = { seq: last.seq, hash: last.hash };
      return entries;
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
    const params: unknown[] = [];
    const where: string[] = [];
    for (const [column, value] of [
      ['doctype', query.doctype],
      ['record', query.record],
      ['"user"', query.user],
    ] as const) {
      if (value === undefined) continue;
      params.push(value);
      where.push(`${column} = $${params.length}`);
    }
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const count = await this.db.query<{ n: string | number }>(
      `SELECT count(*) AS n FROM audit_log ${clause}`,
      params,
    );
    params.push(query.limit ?? 100, query.start ?? 0);
    const { rows } = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM audit_log ${clause} ORDER BY seq ${query.newestFirst ? 'DESC' : 'ASC'} LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    return { data: rows.map(toEntry), total: Number(count.rows[0]?.n ?? 0) };
  }

  /** Every entry in chain order, a page at a time (for verification of a large log). */
  async *entries(pageSize = 1000): AsyncGenerator<AuditEntry> {
    let after = 0;
    for (;;) {
      const { rows } = await this.db.query<Row>(
        `SELECT ${COLUMNS} FROM audit_log WHERE seq > $1 ORDER BY seq LIMIT $2`,
        [after, pageSize],
      );
      for (const row of rows) yield toEntry(row);
      if (rows.length < pageSize) return;
      after = Number(rows[rows.length - 1]!.seq);
    }
  }
}
