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

// The key-encryption keys a rotation is moving values off, one row each from the first start with the new
// key (which hands the blind-index key over) until `m keys rewrap` finishes: the blind-index key alone
// says which key is current, not that values under the previous one remain, and a start that dropped the
// previous key too early would serve `integrity_failed` on every record the rewrap had not reached yet.
const VAULT_ROTATIONS_SQL = `
  CREATE TABLE IF NOT EXISTS vault_rotations (
    kek_id text PRIMARY KEY
  )`;
registerMigration({ id: 'vault.rotations', sql: VAULT_ROTATIONS_SQL });

/** Where the key-encryption key of the records comes from. */
export type KekSource =
  | { kind: 'env'; env: NodeJS.ProcessEnv }
  | { kind: 'file'; keysDir: string }
  | { kind: 'memory'; database: object }
  /**
   * Keys that only open older values, during a rotation: `PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY` (or
   * `_FILE`, which may name a generated `records.kek`). Never implicit: a key the operator did not name as
   * previous is not one, so a mistyped new key is refused instead of being taken for a rotation.
   */
  | { kind: 'previous'; env: NodeJS.ProcessEnv };

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

/** A configured secret as the operator wrote it, and the setting it came from (for messages). */
interface Configured {
  text: string;
  setting: string;
}

async function configured(env: NodeJS.ProcessEnv, name: string): Promise<Configured | undefined> {
  const value = env[name];
  if (value) return check({ text: value, setting: name });
  const file = env[`${name}_FILE`];
  if (!file) return undefined;
  let text: string;
  try {
    text = (await readFile(file, 'utf8')).trim();
  } catch (err) {
    // Named, not a bare ENOENT: a secret mount that is missing is a configuration error (exit 78).
    throw new PlatformError(
      'config_invalid',
      `${name}_FILE names ${file}, which cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}).`,
    );
  }
  return check({ text, setting: `${name}_FILE (${file})` });
}

/** `secret` if long enough to be a key: a short one is a mistake, refused before it wraps anything. */
function check(secret: Configured): Configured {
  if (secret.text.length < 32) {
    throw new PlatformError('config_invalid', `${secret.setting} must be at least 32 characters.`);
  }
  return secret;
}

/** A configured secret's key: its SHA-256 through {@link derive}. */
function configuredKek(secret: Configured): RecordKek {
  return derive(createHash('sha256').update(secret.text).digest());
}

/** A generated file's text (32 random bytes, base64url) as the key {@link derive} makes of it. */
function generatedKek(text: string): RecordKek {
  return derive(Buffer.from(text.trim(), 'base64url'));
}

/** What a generated `records.kek` holds: 32 bytes in base64url, without padding. */
const GENERATED_TEXT = /^[A-Za-z0-9_-]{43}$/;

/** The keys a `previous` source holds. */
async function previousKeks(source: Extract<KekSource, { kind: 'previous' }>): Promise<RecordKek[]> {
  const secret = await configured(source.env, PREVIOUS_RECORDS_KEK_ENV);
  if (!secret) return [];
  // A previous key may be the generated `records.kek` named by `_FILE` (moving to a configured key): its
  // text is read both ways, and only the one whose id wrapped something is ever used.
  const keys = [configuredKek(secret)];
  if (GENERATED_TEXT.test(secret.text)) keys.push(generatedKek(secret.text));
  return keys;
}

/** The text of the generated key in `keysDir`, or undefined when there is none. */
async function readGenerated(keysDir: string): Promise<string | undefined> {
  try {
    return (await readFile(join(keysDir, GENERATED_KEK_FILE), 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return undefined;
  }
}

/** Generates the key file in `keysDir` (private) and returns its text, or the one another process wrote first. */
async function generateFile(keysDir: string): Promise<string> {
  const path = join(keysDir, GENERATED_KEK_FILE);
  await mkdir(keysDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(32);
  // `wx`: two processes starting on one new data directory cannot both write a different key.
  await writeFile(path, `${secret.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' }).catch(
    async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    },
  );
  await chmod(path, 0o600);
  return (await readFile(path, 'utf8')).trim();
}

/** Secrets of in-memory databases, kept as long as the database object lives (tests, benchmarks). */
const memorySecrets = new WeakMap<object, Buffer>();

/** The current key-encryption key, and where it came from in words an operator can act on. */
interface CurrentKek {
  kek: RecordKek;
  source: Exclude<KekSource['kind'], 'previous'>;
  named: string;
}

/**
 * The current key-encryption key of `sources`: `PLATFORM_RECORDS_KEY_ENCRYPTION_KEY` (or `_FILE`) when set;
 * else, for a server, `<data_dir>/keys/records.kek`, generated on first start (only for a database that has
 * no personal data under another key yet: a key generated then could open nothing); else one kept in memory
 * for the lifetime of an in-memory database. docs/operators.md#personal-data-at-rest says which to choose.
 */
async function currentKek(
  sources: readonly KekSource[],
  mayGenerate: boolean,
): Promise<CurrentKek | undefined> {
  for (const source of sources) {
    if (source.kind === 'env') {
      const secret = await configured(source.env, RECORDS_KEK_ENV);
      if (secret) return { kek: configuredKek(secret), source: 'env', named: secret.setting };
    } else if (source.kind === 'file') {
      const path = join(source.keysDir, GENERATED_KEK_FILE);
      const text =
        (await readGenerated(source.keysDir)) ??
        (mayGenerate ? await generateFile(source.keysDir) : undefined);
      if (text) return { kek: generatedKek(text), source: 'file', named: `the generated ${path}` };
    } else if (source.kind === 'memory') {
      const secret = memorySecrets.get(source.database) ?? randomBytes(32);
      memorySecrets.set(source.database, secret);
      return { kek: derive(secret), source: 'memory', named: 'the in-memory key' };
    }
  }
  return undefined;
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
 * Opens the vault of a database: the current key-encryption key, the previous keys (they open older
 * values), and the blind-index key stored (wrapped) in `vault_keys`, created on first use. A blind-index
 * key wrapped by a previous key is wrapped again under the current one (the index key itself never
 * changes, so stored indexes stay valid); wrapped by a key this process was not given, it is
 * `config_invalid`, naming where the current key came from: a mistyped key must not start a server that
 * writes data no start with the right key could read together with the old.
 */
export async function openVaultKeys(
  db: Pick<Database, 'query'>,
  sources: readonly KekSource[],
): Promise<VaultKeys> {
  // Also here: a database opened before this module registered its migration (tests) gets the table too.
  await db.query(VAULT_KEYS_SQL);
  await db.query(VAULT_ROTATIONS_SQL);
  const read = async () =>
    (
      await db.query<{ kek_id: string; wrapped: string }>(
        'SELECT kek_id, wrapped FROM vault_keys WHERE purpose = $1',
        ['blind_index'],
      )
    ).rows[0];
  const stored = await read();
  const previous: RecordKek[] = [];
  let previousNamed = false;
  for (const source of sources) {
    if (source.kind !== 'previous') continue;
    const keys = await previousKeks(source);
    previousNamed ||= keys.length > 0;
    previous.push(...keys);
  }
  // A key is generated only for a database with nothing under another key, and never during a rotation.
  const current = await currentKek(sources, !stored && !previousNamed);
  if (previousNamed && current?.source !== 'env') {
    // A rotation names both keys: the new one is never a file generated on the spot.
    throw new PlatformError(
      'config_invalid',
      `${PREVIOUS_RECORDS_KEK_ENV} is set but ${RECORDS_KEK_ENV} is not: a rotation needs the new key named too.`,
    );
  }
  if (!current) {
    throw new PlatformError(
      'config_invalid',
      `The personal data of this database is encrypted under key-encryption key ${stored?.kek_id ?? '(none)'}, and no key is configured: set ${RECORDS_KEK_ENV} (or _FILE) to the key it was written with.`,
    );
  }
  const { kek } = current;
  if (!stored) {
    await db.query(
      'INSERT INTO vault_keys (purpose, kek_id, wrapped) VALUES ($1, $2, $3) ON CONFLICT (purpose) DO NOTHING',
      ['blind_index', kek.id, wrapKey(kek, randomBytes(32))],
    );
  }
  const row = stored ?? (await read())!;
  const older = previous.filter((p) => p.id !== kek.id);
  let indexKey: Buffer;
  if (row.kek_id === kek.id) indexKey = unwrapKey(kek, row.wrapped);
  else {
    const wrapper = older.find((p) => p.id === row.kek_id);
    if (!wrapper) throw await notTheKey(sources, current, row.kek_id, previousNamed);
    indexKey = unwrapKey(wrapper, row.wrapped);
  }
  const { rows: rotations } = await db.query<{ kek_id: string }>('SELECT kek_id FROM vault_rotations');
  const unheld = rotations
    .map((r) => r.kek_id)
    .filter((id) => id !== kek.id && !older.some((p) => p.id === id));
  if (unheld.length > 0) throw unfinishedRotation(current, row.kek_id, unheld, previousNamed);
  if (row.kek_id !== kek.id) {
    // Recorded before the hand-over, so a crash between the two statements errs on the side of asking for
    // the previous key once more.
    await db.query('INSERT INTO vault_rotations (kek_id) VALUES ($1) ON CONFLICT (kek_id) DO NOTHING', [
      row.kek_id,
    ]);
    await db.query('UPDATE vault_keys SET kek_id = $2, wrapped = $3 WHERE purpose = $1 AND kek_id = $4', [
      'blind_index',
      kek.id,
      wrapKey(kek, indexKey),
      row.kek_id,
    ]);
  }
  return {
    cipher: new FieldCipher(kek, older),
    blindIndex: new BlindIndex(indexKey),
    source: current.source,
  };
}

/**
 * The refusal of a start without the key a rotation has not finished moving values off: values the rewrap
 * has not reached yet are still under it, and nothing else opens them.
 */
function unfinishedRotation(
  current: CurrentKek,
  target: string,
  unheld: readonly string[],
  previousNamed: boolean,
): PlatformError {
  const ids = unheld.join(', ');
  // `target` is the key the rotation under way moves values to: the current one, unless this start begins
  // another rotation, which must wait for the first to finish (only one previous key can be given).
  const fix =
    target === current.kek.id
      ? `${previousNamed ? `${PREVIOUS_RECORDS_KEK_ENV} is not that key: set` : 'Set'} ${PREVIOUS_RECORDS_KEK_ENV} (or _FILE) to it and run m keys rewrap to the end before dropping it.`
      : `Finish that rotation first (${RECORDS_KEK_ENV} the key ${target}, ${PREVIOUS_RECORDS_KEK_ENV} the key ${ids}, then m keys rewrap to the end), and only then rotate to ${current.named} (${current.kek.id}).`;
  return new PlatformError(
    'config_invalid',
    `Personal data of this database is still under key-encryption key ${ids}: m keys rewrap has not finished moving it to key ${target}. ${fix} See docs/operators.md#rotating-the-key-encryption-key.`,
  );
}

/** The refusal of a key that did not write this database's data, with what to do about it. */
async function notTheKey(
  sources: readonly KekSource[],
  current: CurrentKek,
  storedId: string,
  previousNamed: boolean,
): Promise<PlatformError> {
  const file = sources.find((s): s is Extract<KekSource, { kind: 'file' }> => s.kind === 'file');
  const generated = file && current.source === 'env' ? await readGenerated(file.keysDir) : undefined;
  const path = file && join(file.keysDir, GENERATED_KEK_FILE);
  const hint =
    generated && generatedKek(generated).id === storedId
      ? `It is under the generated ${path}: check ${current.named}, or, to move to it, also set ${PREVIOUS_RECORDS_KEK_ENV}_FILE=${path} and run m keys rewrap.`
      : previousNamed
        ? `Neither it nor ${PREVIOUS_RECORDS_KEK_ENV} is that key.`
        : `Check the key; if you are rotating, set the one it was written with in ${PREVIOUS_RECORDS_KEK_ENV}.`;
  return new PlatformError(
    'config_invalid',
    `The personal data of this database is encrypted under key-encryption key ${storedId}, not under ${current.named} (${current.kek.id}). ${hint} See docs/operators.md#rotating-the-key-encryption-key.`,
  );
}

/**
 * Where a process looks for its key-encryption key, in order: the environment; then, for a database the
 * caller opened in memory (`inMemory`, tests and benchmarks), a key as short-lived as it; else the
 * generated file in `<dataDir>/keys`. Previous keys (rotation): only the previous configured key.
 */
export function kekSources(dataDir: string, env: NodeJS.ProcessEnv, inMemory?: object): KekSource[] {
  return [
    { kind: 'env', env },
    inMemory ? { kind: 'memory', database: inMemory } : { kind: 'file', keysDir: join(dataDir, 'keys') },
    { kind: 'previous', env },
  ];
}
