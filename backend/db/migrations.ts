import type { Database } from './database';

/**
 * One schema step. Migrations are plain idempotent SQL (`CREATE TABLE IF NOT EXISTS ...`), so running
 * them again on every start is harmless and no version table is needed; `id` only names a step in errors.
 */
export interface Migration {
  id: string;
  sql: string;
}

const registered: Migration[] = [];

/**
 * Registers SQL that every database opened by {@link openDatabase} runs, in registration order.
 * A capability calls it at module load (e.g. the auth store for its users/sessions tables); a duplicate
 * `id` replaces nothing and is ignored, so a module loaded twice registers once.
 *
 * @example
 * registerMigration({ id: 'auth.users', sql: 'CREATE TABLE IF NOT EXISTS users (name text PRIMARY KEY)' });
 */
export function registerMigration(migration: Migration): void {
  if (!registered.some((m) => m.id === migration.id)) registered.push(migration);
}

/** The migrations registered so far, in order. */
export function registeredMigrations(): readonly Migration[] {
  return registered;
}

/** Runs every registered migration (or the given list) against `db`, stopping at the first failure. */
export async function runMigrations(
  db: Database,
  migrations: readonly Migration[] = registered,
): Promise<void> {
  for (const migration of migrations) {
    try {
      await db.exec(migration.sql);
    } catch (cause) {
      throw new Error(`migration ${migration.id} failed: ${(cause as Error).message}`, { cause });
    }
  }
}

// The DocType records of every installed app live in one generic table (one row per record, fields in
// `data`), and record names come from per-prefix counters (`CUST-00001`).
registerMigration({
  id: 'core.records',
  sql: `
    CREATE TABLE IF NOT EXISTS records (
      doctype  text NOT NULL,
      name     text NOT NULL,
      data     jsonb NOT NULL,
      creation timestamptz NOT NULL DEFAULT now(),
      modified timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (doctype, name)
    );
    CREATE INDEX IF NOT EXISTS records_doctype_modified ON records (doctype, modified DESC);
    CREATE TABLE IF NOT EXISTS naming_series (
      prefix  text PRIMARY KEY,
      current bigint NOT NULL
    );
  `,
});

// Who stored each record's current version (the data API's `modified_by`); empty for records stored before.
registerMigration({
  id: 'core.records.modified_by',
  sql: 'ALTER TABLE records ADD COLUMN IF NOT EXISTS modified_by text',
});
