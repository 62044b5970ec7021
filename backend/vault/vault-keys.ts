import { createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from '../db/database';
import { registerMigration } from '../db/migrations';
import { PlatformError } from '../http/errors';
import { BlindIndex } from './blind-index';
import { FieldCipher, type RecordKek } from './field-cipher';

/** File of the generated key-encryption key when none is configured, inside `<data_dir>/keys`. */
export const GENERATED_KEK_FILE = 'records.kek';

/**
 * Environment variable holding the key-encryption key of personal data at rest (at least 32 characters).
 * Its own setting, not the gateways' `PLATFORM_KEY_ENCRYPTION_KEY`: that one wraps a key ring that lives as
 * long as the NATS store (`npm run start:macro` makes a new one per run), this one must outlive every
 * record it wrapped, and a key serves one purpose. `<name>_FILE` names a file holding it instead (secret
 * mounts), for this variable and the previous one alike.
 */
export const RECORDS_KEK_ENV = 'PLATFORM_RECORDS_KEY_ENCRYPTION_KEY';
/** The key it replaced, during a rotation: values it wrapped still open until `m keys rewrap` is done. */
export const PREVIOUS_RECORDS_KEK_ENV = 'PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY';

// The blind-index key lives in the database, wrapped by the key-encryption key, so every process sharing
// the database (and a restored backup) indexes alike; without the key-encryption key it is useless.
const VAULT_KEYS_SQL = `
  CREATE TABLE IF NOT EXISTS vault_keys (
    purpose text PRIMARY KEY,
    kek_id  text NOT NULL,
    wrapped text NOT NULL
  )`;
registerMigration({ id: 'vault.keys', sql: VAULT_KEYS_SQL });

/** Where the key-encryption key of the records comes from. */
export type KekSource =
  | { kind: 'env'; env: NodeJS.ProcessEnv }
  | { kind: 'file'; keysDir: string }
  | { kind: 'memory'; database: object }
  /** Keys that only open older values: `PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY`, a generated file. */
  | { kind: 'previous'; env: NodeJS.ProcessEnv; keysDir?: string };

/** The keys of personal data at rest: values are encrypted with `cipher`, indexed with `blindIndex`. */
export interface VaultKeys {
  cipher: FieldCipher;
  blindIndex: BlindIndex;
  /** Which source supplied the current key-encryption key. */
  source: KekSource['kind'];
}

/** A secret (configured or generated) turned into this purpose's own 256-bit key. */
function derive(secret: Buffer): RecordKek {
  // HKDF with its own label: whatever else an operator reuses the secret for, this key serves one purpose
  // (RFC 5869 section 3.2).
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'platform records kek', 32));
  return { key, id: createHmac('sha256', key).update('kek-id').digest('hex').slice(0, 16) };
}

async function envSecret(env: NodeJS.ProcessEnv, name = RECORDS_KEK_ENV): Promise<Buffer | undefined> {
  let secret = env[name];
  const file = env[`${name}_FILE`];
  if (!secret && file) secret = (await readFile(file, 'utf8')).trim();
  if (!secret) return undefined;
  if (secret.length < 32) {
    throw new PlatformError('config_invalid', `${name} must be at least 32 characters.`);
  }
  return createHash('sha256').update(secret).digest();
}

/** The keys a `previous` source holds: the previous configured key, and a generated file left behind. */
async function previousKeks(source: Extract<KekSource, { kind: 'previous' }>): Promise<RecordKek[]> {
  const found: RecordKek[] = [];
  const configured = await envSecret(source.env, PREVIOUS_RECORDS_KEK_ENV);
  if (configured) found.push(derive(configured));
  if (source.keysDir) {
    const text = await readFile(join(source.keysDir, GENERATED_KEK_FILE), 'utf8').catch(() => undefined);
    if (text) found.push(derive(Buffer.from(text.trim(), 'base64url')));
  }
  return found;
}

async function fileSecret(keysDir: string): Promise<Buffer> {
  const path = join(keysDir, GENERATED_KEK_FILE);
  try {
    return Buffer.from((await readFile(path, 'utf8')).trim(), 'base64url');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(keysDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32);
  // `wx`: two processes starting on one new data directory cannot both write a different key.
  await writeFile(path, `${secret.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' }).catch(
    async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    },
  );
  await chmod(path, 0o600);
  return Buffer.from((await readFile(path, 'utf8')).trim(), 'base64url');
}

/** Secrets of in-memory databases, kept as long as the database object lives (tests, benchmarks). */
const memorySecrets = new WeakMap<object, Buffer>();

/**
 * The key-encryption key of `source`: `PLATFORM_RECORDS_KEY_ENCRYPTION_KEY` (or `_FILE`) when set; else, for a
 * server, `<data_dir>/keys/records.kek`, generated on first start; else one kept in memory for the
 * lifetime of an in-memory database. docs/operators.md#personal-data-at-rest says which to choose.
 */
export async function recordKek(source: KekSource): Promise<RecordKek | undefined> {
  if (source.kind === 'previous') return undefined;
  if (source.kind === 'env') {
    const secret = await envSecret(source.env);
    return secret && derive(secret);
  }
  if (source.kind === 'file') return derive(await fileSecret(source.keysDir));
  const secret = memorySecrets.get(source.database) ?? randomBytes(32);
  memorySecrets.set(source.database, secret);
  return derive(secret);
}

function wrapKey(kek: RecordKek, key: Buffer): string {
  return new FieldCipher(kek).encrypt(key.toString('base64url'), {
    doctype: 'vault',
    record: 'blind_index',
    field: 'key',
  });
}

function unwrapKey(kek: RecordKek, wrapped: string): Buffer {
  const text = new FieldCipher(kek).decrypt(wrapped, {
    doctype: 'vault',
    record: 'blind_index',
    field: 'key',
  });
  return Buffer.from(String(text), 'base64url');
}

/**
 * Opens the vault of a database: the key-encryption key of the first source that has one, the previous
 * keys (they open older values), and the blind-index key stored (wrapped) in `vault_keys`, created on first
 * use. A blind-index key wrapped by a previous key is wrapped again under the current one (the index key
 * itself never changes, so stored indexes stay valid); wrapped by a key this process does not hold, it is
 * `config_invalid`: the configured key is not the one the data was written with.
 */
export async function openVaultKeys(
  db: Pick<Database, 'query'>,
  sources: readonly KekSource[],
): Promise<VaultKeys> {
  // Also here: a database opened before this module registered its migration (tests) gets the table too.
  await db.query(VAULT_KEYS_SQL);
  const previous: RecordKek[] = [];
  for (const source of sources) {
    if (source.kind === 'previous') previous.push(...(await previousKeks(source)));
  }
  for (const source of sources) {
    const kek = await recordKek(source);
    if (!kek) continue;
    await db.query(
      'INSERT INTO vault_keys (purpose, kek_id, wrapped) VALUES ($1, $2, $3) ON CONFLICT (purpose) DO NOTHING',
      ['blind_index', kek.id, wrapKey(kek, randomBytes(32))],
    );
    const { rows } = await db.query<{ kek_id: string; wrapped: string }>(
      'SELECT kek_id, wrapped FROM vault_keys WHERE purpose = $1',
      ['blind_index'],
    );
    const row = rows[0]!;
    const older = previous.filter((p) => p.id !== kek.id);
    let indexKey: Buffer;
    if (row.kek_id === kek.id) indexKey = unwrapKey(kek, row.wrapped);
    else {
      const wrapper = older.find((p) => p.id === row.kek_id);
      if (!wrapper) {
        throw new PlatformError(
          'config_invalid',
          `The personal data of this database was encrypted under another key-encryption key (${row.kek_id}); the configured one is ${kek.id}.`,
        );
      }
      indexKey = unwrapKey(wrapper, row.wrapped);
      await db.query('UPDATE vault_keys SET kek_id = $2, wrapped = $3 WHERE purpose = $1 AND kek_id = $4', [
        'blind_index',
        kek.id,
        wrapKey(kek, indexKey),
        wrapper.id,
      ]);
    }
    return {
      cipher: new FieldCipher(kek, older),
      blindIndex: new BlindIndex(indexKey),
      source: source.kind,
    };
  }
  throw new PlatformError('config_invalid', 'No key-encryption key for personal data at rest.');
}

/**
 * Where a process looks for its key-encryption key, in order: the environment; then, for a database the
 * caller opened in memory (`inMemory`, tests and benchmarks), a key as short-lived as it; else the
 * generated file in `<dataDir>/keys`. Previous keys (rotation): the previous configured key, and the
 * generated file when another key is now configured.
 */
export function kekSources(dataDir: string, env: NodeJS.ProcessEnv, inMemory?: object): KekSource[] {
  const keysDir = inMemory ? undefined : join(dataDir, 'keys');
  return [
    { kind: 'env', env },
    keysDir ? { kind: 'file', keysDir } : { kind: 'memory', database: inMemory! },
    { kind: 'previous', env, keysDir },
  ];
}
