import type { Database } from '../../db/database';
import { registerMigration } from '../../db/migrations';
import type { SeenSet } from './seen-set';

/** The table behind {@link DbSeenSet}: one row per JWE id until the token could no longer pass the age check. */
export const SEEN_JWE_SCHEMA = `
CREATE TABLE IF NOT EXISTS platform_jwe_seen (
  jti TEXT PRIMARY KEY,
  expires_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS platform_jwe_seen_expires ON platform_jwe_seen (expires_at);
`;

registerMigration({ id: 'security.jwe_seen', sql: SEEN_JWE_SCHEMA });

/** How often, at most, expired ids are deleted (on the way of an `add`, never on a timer of its own). */
const SWEEP_EVERY_MS = 60_000;

/**
 * The {@link SeenSet} in the database (docs/security.md#replay-window), what a MACROSERVICE gateway asks
 * before the NATS KV set the gateways share: a token accepted before a crash, a restart or the loss of the
 * NATS store is still refused after it, for as long as its `iat` is inside the window. `add` is one `INSERT ... ON CONFLICT DO UPDATE ... WHERE
 * <expired>` statement: the primary key makes it atomic, so of any number of concurrent requests carrying one
 * `jti` exactly one is accepted, and an id whose lifetime ended is taken over by its next use.
 */
export class DbSeenSet implements SeenSet {
  readonly #db: Pick<Database, 'query' | 'exec'>;
  readonly #now: () => number;
  #sweptAt: number;

  constructor(db: Pick<Database, 'query' | 'exec'>, options: { now?: () => number } = {}) {
    this.#db = db;
    this.#now = options.now ?? Date.now;
    this.#sweptAt = this.#now();
  }

  /** Creates the table when missing (a database opened before this module registered its migration). */
  async migrate(): Promise<void> {
    await this.#db.exec(SEEN_JWE_SCHEMA);
  }

  async add(id: string, ttlMs: number): Promise<boolean> {
    const now = this.#now();
    const { rows } = await this.#db.query(
      `INSERT INTO platform_jwe_seen (jti, expires_at) VALUES ($1, $2)
       ON CONFLICT (jti) DO UPDATE SET expires_at = EXCLUDED.expires_at
         WHERE platform_jwe_seen.expires_at <= $3
       RETURNING jti`,
      [id, now + ttlMs, now],
    );
    if (now - this.#sweptAt >= SWEEP_EVERY_MS) {
      this.#sweptAt = now;
      // Expired rows only take space: a failed sweep is retried on a later add.
      this.#db.query('DELETE FROM platform_jwe_seen WHERE expires_at <= $1', [now]).catch(() => {});
    }
    return rows.length > 0;
  }
}
