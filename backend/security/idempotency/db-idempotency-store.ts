import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/database';
import { PlatformError } from '../../http/errors';
import { type FieldBinding, type FieldCipher, isCiphertext } from '../../vault/field-cipher';
import {
  type BeginResult,
  type IdempotencyStore,
  IN_FLIGHT_TIMEOUT_MS,
  type StoredResponse,
  type Transaction,
} from './idempotency-store';

/** The table behind {@link DbIdempotencyStore}; `key` is the caller-scoped hash, so it is the primary key. */
export const IDEMPOTENCY_SCHEMA = `
CREATE TABLE IF NOT EXISTS platform_idempotency (
  key TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  status INTEGER,
  headers TEXT,
  body TEXT,
  started_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS platform_idempotency_expires ON platform_idempotency (expires_at);
ALTER TABLE platform_idempotency ADD COLUMN IF NOT EXISTS owner TEXT;
`;

/**
 * What seals a kept answer's body: the records' envelope encryption, so the key-encryption key that protects
 * personal data at rest protects an answer that revealed some.
 */
export type AnswerCipher = Pick<FieldCipher, 'encrypt' | 'decrypt'>;

/** Where a kept answer's body belongs: its row's lookup key, so a body moved to another row does not open. */
function answerBinding(key: string): FieldBinding {
  return { doctype: 'platform_idempotency', record: key, field: 'body' };
}

interface Row {
  fingerprint: string;
  status: number | null;
  headers: string | null;
  body: string | null;
}

/**
 * Idempotency records in the database of the process that owns the writes they guard (MONOLITH's, a
 * MACROSERVICE service's), shared by every process on it. `begin` is one
 * `INSERT ... ON CONFLICT DO UPDATE ... WHERE <expired or abandoned>` statement: the primary key makes it
 * atomic, so of any number of concurrent requests with one key exactly one inserts (or takes over) the row,
 * under a new random `owner`. `complete` in the record write's transaction is an `UPDATE ... WHERE owner`:
 * the record and its answer commit together or not at all (docs/security.md#idempotency).
 *
 * With a `cipher` (a process that stores personal data at rest), each kept answer's body is stored sealed
 * for its row: the answer to a create or read by a reader with `read_pii` holds personal data in clear,
 * which the table, its WAL and a `pg_dump` must not (docs/security.md#personal-data-at-rest). A body kept
 * before, or by a process without one, is replayed as it was stored.
 */
export class DbIdempotencyStore implements IdempotencyStore {
  readonly #db: Pick<Database, 'query' | 'exec'>;
  readonly #now: () => number;
  readonly #cipher: AnswerCipher | undefined;

  constructor(
    db: Pick<Database, 'query' | 'exec'>,
    options: { now?: () => number; cipher?: AnswerCipher | undefined } = {},
  ) {
    this.#db = db;
    this.#now = options.now ?? Date.now;
    this.#cipher = options.cipher;
  }

  /** The body of a kept answer as it is stored: sealed for its row when this store has a cipher. */
  #sealed(key: string, body: string): string {
    return this.#cipher ? this.#cipher.encrypt(body, answerBinding(key)) : body;
  }

  /**
   * The body of a kept answer as it was sent. A sealed body that does not open for this row (moved from
   * another row, edited, or sealed under a key this process does not hold) is `integrity_failed`, never
   * replayed.
   */
  #opened(key: string, stored: string): string {
    if (!this.#cipher || !isCiphertext(stored)) return stored;
    try {
      return this.#cipher.decrypt(stored, answerBinding(key)) as string;
    } catch (err) {
      // In the client's words: the cipher's own message names the internal table the answer is kept in.
      throw new PlatformError(
        'integrity_failed',
        'The answer kept for this Idempotency-Key failed its integrity check and is not replayed; send the request again with a new key.',
        { status: 500, cause: err },
      );
    }
  }

  /** Creates the table when missing. */
  async migrate(): Promise<void> {
    await this.#db.exec(IDEMPOTENCY_SCHEMA);
  }

  async begin(key: string, fingerprint: string, ttlMs: number): Promise<BeginResult> {
    // A row released between our INSERT and SELECT is simply tried again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = this.#now();
      const owner = randomUUID();
      const inserted = await this.#db.query(
        `INSERT INTO platform_idempotency (key, fingerprint, started_at, expires_at, owner)
         VALUES ($1, $2, $3, $4, $6)
         ON CONFLICT (key) DO UPDATE
           SET fingerprint = EXCLUDED.fingerprint, status = NULL, headers = NULL, body = NULL,
               started_at = EXCLUDED.started_at, expires_at = EXCLUDED.expires_at, owner = EXCLUDED.owner
           WHERE platform_idempotency.expires_at <= $3
              OR (platform_idempotency.status IS NULL AND platform_idempotency.started_at <= $5)
         RETURNING key`,
        [key, fingerprint, now, now + ttlMs, now - IN_FLIGHT_TIMEOUT_MS, owner],
      );
      if (inserted.rows.length > 0) return { state: 'new', owner };
      const { rows } = await this.#db.query<Row>(
        'SELECT fingerprint, status, headers, body FROM platform_idempotency WHERE key = $1',
        [key],
      );
      const row = rows[0];
      if (!row) continue;
      if (row.fingerprint !== fingerprint) return { state: 'conflict' };
      if (row.status === null) return { state: 'in_flight' };
      return {
        state: 'replay',
        response: {
          status: Number(row.status),
          headers: JSON.parse(row.headers ?? '{}') as Record<string, string>,
          body: this.#opened(key, row.body ?? ''),
        },
      };
    }
    return { state: 'in_flight' };
  }

  async complete(key: string, owner: string, response: StoredResponse, tx?: Transaction): Promise<boolean> {
    const { rows } = await (tx ?? this.#db).query(
      `UPDATE platform_idempotency SET status = $3, headers = $4, body = $5
        WHERE key = $1 AND owner = $2 AND status IS NULL
        RETURNING key`,
      [key, owner, response.status, JSON.stringify(response.headers), this.#sealed(key, response.body)],
    );
    return rows.length > 0;
  }

  async release(key: string, owner: string): Promise<void> {
    await this.#db.query(
      'DELETE FROM platform_idempotency WHERE key = $1 AND owner = $2 AND status IS NULL',
      [key, owner],
    );
  }

  /** Deletes expired records; called periodically by the server. */
  async sweep(): Promise<void> {
    await this.#db.query('DELETE FROM platform_idempotency WHERE expires_at <= $1', [this.#now()]);
  }
}
