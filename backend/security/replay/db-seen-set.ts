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

/** Most ids one claim statement carries; more wait for the next statement. */
export const MAX_CLAIMS_PER_STATEMENT = 256;

/**
 * Claims every id of a batch at once. PostgreSQL refuses an `ON CONFLICT DO UPDATE` that touches one row
 * twice, so a batch holds each id once. `RETURNING` names the ids this statement inserted or took over.
 */
const CLAIM_SQL = `INSERT INTO platform_jwe_seen (jti, expires_at)
  SELECT * FROM unnest($1::text[], $2::bigint[])
  ON CONFLICT (jti) DO UPDATE SET expires_at = EXCLUDED.expires_at
    WHERE platform_jwe_seen.expires_at <= $3
  RETURNING jti`;

/** One `add` waiting for its batch's statement. */
interface PendingClaim {
  expiresAt: number;
  resolve(claimed: boolean): void;
  reject(err: unknown): void;
}

/**
 * The {@link SeenSet} in the database (docs/security.md#replay-window), what a MACROSERVICE gateway asks
 * before the NATS KV set the gateways share: a token accepted before a crash, a restart or the loss of the
 * NATS store is still refused after it, for as long as its `iat` is inside the window. A claim is an `INSERT
 * ... ON CONFLICT DO UPDATE ... WHERE <expired>`: the primary key makes it atomic, so of any number of
 * concurrent requests carrying one `jti`, in this process or in others sharing the database, exactly one is
 * accepted, and an id whose lifetime ended is taken over by its next use.
 *
 * Claims are committed in groups, like syncs in backend/db/group-sync.ts: the first claim's statement is sent
 * at once, and the claims that arrive while it runs go together in the next one (at most
 * {@link MAX_CLAIMS_PER_STATEMENT} ids each), so concurrent requests share a round trip instead of each
 * sending their own. An `add` accepted resolves only once the statement carrying its id has committed.
 */
export class DbSeenSet implements SeenSet {
  readonly #db: Pick<Database, 'query' | 'exec'>;
  readonly #now: () => number;
  #sweptAt: number;
  /** Batches not sent yet, oldest first; each maps an id to the one `add` that claims it. */
  readonly #waiting: Map<string, PendingClaim>[] = [];
  #sending = false;

  constructor(db: Pick<Database, 'query' | 'exec'>, options: { now?: () => number } = {}) {
    this.#db = db;
    this.#now = options.now ?? Date.now;
    this.#sweptAt = this.#now();
  }

  /** Creates the table when missing (a database opened before this module registered its migration). */
  async migrate(): Promise<void> {
    await this.#db.exec(SEEN_JWE_SCHEMA);
  }

  add(id: string, ttlMs: number): Promise<boolean> {
    const now = this.#now();
    this.#sweepIfDue(now);
    // The same id twice in one statement would fail it: the claim already waiting decides the one
    // acceptance, and this one is a replay whatever its outcome.
    if (this.#waiting.some((batch) => batch.has(id))) return Promise.resolve(false);
    let batch = this.#waiting.at(-1);
    if (!batch || batch.size >= MAX_CLAIMS_PER_STATEMENT) {
      batch = new Map();
      this.#waiting.push(batch);
    }
    const claimed = new Promise<boolean>((resolve, reject) => {
      batch.set(id, { expiresAt: now + ttlMs, resolve, reject });
    });
    if (!this.#sending) void this.#sendWaiting();
    return claimed;
  }

  /** Sends the waiting batches one statement at a time until none is left. */
  async #sendWaiting(): Promise<void> {
    this.#sending = true;
    try {
      for (let batch = this.#waiting.shift(); batch; batch = this.#waiting.shift()) await this.#claim(batch);
    } finally {
      this.#sending = false;
    }
  }

  /** Runs one claim statement; a failure rejects every `add` of the batch (the requests fail closed). */
  async #claim(batch: Map<string, PendingClaim>): Promise<void> {
    const claims = [...batch];
    const ids = claims.map(([id]) => id);
    const expiries = claims.map(([, pending]) => pending.expiresAt);
    let claimedIds: Set<string>;
    try {
      const { rows } = await this.#db.query<{ jti: string }>(CLAIM_SQL, [ids, expiries, this.#now()]);
      claimedIds = new Set(rows.map((row) => row.jti));
    } catch (err) {
      for (const pending of batch.values()) pending.reject(err);
      return;
    }
    for (const [id, pending] of claims) pending.resolve(claimedIds.has(id));
  }

  #sweepIfDue(now: number): void {
    if (now - this.#sweptAt < SWEEP_EVERY_MS) return;
    this.#sweptAt = now;
    // Expired rows only take space: a failed sweep is retried on a later add.
    this.#db.query('DELETE FROM platform_jwe_seen WHERE expires_at <= $1', [now]).catch(() => {});
  }
}
