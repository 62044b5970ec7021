import type { Database } from './database';

/** What a database opened embedded (PGlite) says about itself: where it lives, if on disk. */
export interface EmbeddedDatabase {
  /** The database's directory; undefined for one in memory. */
  readonly dir: string | undefined;
}

const embedded = new WeakMap<object, EmbeddedDatabase>();

/** Records that `db` is embedded: this process alone owns it (PGlite locks its directory). */
export function markEmbedded(db: Database, facts: EmbeddedDatabase): void {
  embedded.set(db.identity ?? db, facts);
}

/**
 * `db`, or the database under any wrapper of it, if it is embedded: state kept beside it may then live in
 * this process, as no other process writes the database. Undefined for a PostgreSQL server's.
 */
export function embeddedDatabase(db: Pick<Database, 'identity'> | object): EmbeddedDatabase | undefined {
  return embedded.get((db as Partial<Pick<Database, 'identity'>>).identity ?? db);
}
