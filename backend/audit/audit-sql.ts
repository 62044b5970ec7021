/**
 * The SQL of the audit log (audit-log.ts): its table, and the INSERT of entries, alone or riding on the
 * statement that reads a record.
 */
import type { CompanionInsert } from '../data/records';
import { registerMigration } from '../db/migrations';
import type { AuditEntry } from './chain';

// Append-only in the database too: UPDATE, DELETE and TRUNCATE raise. An operator who drops the trigger can
// still remove or edit rows; the hash chain is what detects that (`m audit verify`).
/** The `audit_log` table, its indexes and the triggers that keep it append-only. */
export const AUDIT_SQL = `
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

/** An entry as the database driver returns it: `seq` may come back as text, `at` as a Date. */
export type Row = Omit<AuditEntry, 'seq' | 'at'> & { seq: string | number; at: Date | string };

/** The table's columns, in the order of {@link Row} and of every INSERT. */
export const COLUMNS =
  'seq, at, "user", via, doctype, record, fields, route, client_address, prev_hash, hash';

/** A row as read back, typed as the entry it stores. */
export function toEntry(row: Row): AuditEntry {
  return { ...row, seq: Number(row.seq), at: new Date(row.at).toISOString() };
}

/**
 * The parameters of `entries` (a row of 11 each) and their `VALUES` rows, numbered from `$first`. One
 * INSERT with a row of parameters each is cheaper for the database than unpacking a JSON document of them
 * (most appends are one entry, a single record read), and a list's page stays well under the protocol's
 * 65,535 parameters (500 entries of 11).
 */
function valuesSql(entries: readonly AuditEntry[], first = 1): [string, unknown[]] {
  const params: unknown[] = [];
  const rows = entries.map((e) => {
    const at = params.length + first - 1;
    params.push(e.seq, e.at, e.user, e.via, e.doctype, e.record, JSON.stringify(e.fields), e.route);
    params.push(e.client_address, e.prev_hash, e.hash);
    const p = (i: number) => `$${at + i}`;
    return `(${p(1)}::bigint, ${p(2)}::timestamptz, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}::jsonb, ${p(8)}, ${p(9)}::text, ${p(10)}, ${p(11)})`;
  });
  return [rows.join(', '), params];
}

/** One INSERT of `entries`. */
export function insertSql(entries: readonly AuditEntry[]): [string, unknown[]] {
  const [rows, params] = valuesSql(entries);
  return [`INSERT INTO audit_log (${COLUMNS}) VALUES ${rows}`, params];
}

/**
 * One INSERT of a batch of `entries` whose text does not depend on how many there are: each column is one
 * array parameter, unnested into rows. The embedded database prepares a statement once per text
 * (backend/db/pglite-statements.ts), so a `VALUES` list of one row per entry would be parsed and planned
 * again for every batch size and would crowd other statements out of the prepared ones.
 */
export function batchInsertSql(entries: readonly AuditEntry[]): [string, unknown[]] {
  const column = <K extends keyof AuditEntry>(key: K) => entries.map((e) => e[key]);
  return [
    `INSERT INTO audit_log (${COLUMNS}) SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::text[], $9::text[], $10::text[], $11::text[])`,
    [
      column('seq'),
      column('at'),
      column('user'),
      column('via'),
      column('doctype'),
      column('record'),
      entries.map((e) => JSON.stringify(e.fields)),
      column('route'),
      column('client_address'),
      column('prev_hash'),
      column('hash'),
    ],
  ];
}

/** The INSERT of `entries` as a read's companion: only where `condition` holds (the record exists). */
export function companionInsert(entries: readonly AuditEntry[]): CompanionInsert {
  return {
    params: valuesSql(entries)[1],
    sql: (first, condition) =>
      `INSERT INTO audit_log (${COLUMNS}) SELECT * FROM (VALUES ${valuesSql(entries, first)[0]}) AS entry WHERE ${condition}`,
  };
}
