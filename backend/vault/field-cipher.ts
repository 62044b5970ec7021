import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  type KeyObject,
  randomFillSync,
} from 'node:crypto';
import { PlatformError } from '../http/errors';

/** Marks a stored value as a ciphertext of this format (docs/security.md#personal-data-at-rest). */
const PREFIX = 'enc1';

/** Where a value belongs: the associated data of both its encryption and the wrapping of its data key. */
export interface FieldBinding {
  doctype: string;
  record: string;
  field: string;
}

/** The key-encryption key of the records, and its short identifier written into every ciphertext. */
export interface RecordKek {
  key: Buffer;
  /** Hex, derived from the key: tells which key-encryption key wrapped a value (rotation, rewrap). */
  id: string;
}

function associatedData(binding: FieldBinding, purpose: 'value' | 'data-key'): Buffer {
  // A JSON array cannot be confused across its parts, whatever characters a name holds.
  return Buffer.from(JSON.stringify([purpose, binding.doctype, binding.record, binding.field]));
}

/** Bytes drawn from the CSPRNG at once: one call per many values instead of three per value. */
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

/**
 * `size` fresh random bytes from a pool refilled from the operating system's CSPRNG (as Node's own
 * `randomUUID` does): each byte is handed out once, copied, and the pool is refilled when spent.
 */
function freshBytes(size: number): Buffer {
  if (poolOffset + size > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafeSlow(POOL_SIZE));
    poolOffset = 0;
  }
  const bytes = Buffer.from(pool.subarray(poolOffset, poolOffset + size));
  pool.fill(0, poolOffset, poolOffset + size);
  poolOffset += size;
  return bytes;
}

function seal(key: Buffer | KeyObject, plaintext: Buffer, aad: Buffer): Buffer[] {
  const iv = freshBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [iv, body, cipher.getAuthTag()];
}

function open(key: Buffer | KeyObject, iv: Buffer, body: Buffer, tag: Buffer, aad: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(body), decipher.final()]);
}

/**
 * The one refusal of a stored value that does not open: moved from another record or field, edited, or
 * wrapped by a key-encryption key this process does not hold. Names where, never what.
 */
function unreadable(binding: FieldBinding, cause?: unknown): PlatformError {
  return new PlatformError(
    'integrity_failed',
    `The stored value of ${binding.field} in ${binding.doctype} ${binding.record} failed its integrity check.`,
    { status: 500, cause },
  );
}

/** True when `value` is a ciphertext written by {@link FieldCipher.encrypt}. */
export function isCiphertext(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(`${PREFIX}.`);
}

/** The key-encryption key id a ciphertext names, or undefined for anything else. */
export function kekIdOf(value: unknown): string | undefined {
  return isCiphertext(value) ? value.split('.')[1] : undefined;
}

/**
 * Envelope encryption of one field value (AES-256-GCM): a fresh 256-bit data key per value encrypts the
 * value's JSON, and the key-encryption key wraps that data key; both carry the DocType, record name and
 * field as associated data, so a ciphertext copied into another record or field does not open. Stored as
 * `enc1.<kek id>.<iv>.<wrapped key>.<tag>.<iv>.<ciphertext>.<tag>` (base64url parts).
 */
export class FieldCipher {
  /** The key-encryption keys by id, as `KeyObject`s: imported once, not at every wrap and unwrap. */
  readonly #byId: Map<string, KeyObject>;
  readonly #current: KeyObject;

  /** `kek` wraps new values; `previous` keys only open values wrapped before a rotation (`m keys rewrap`). */
  constructor(
    private readonly kek: RecordKek,
    previous: readonly RecordKek[] = [],
  ) {
    this.#byId = new Map([...previous, kek].map((k) => [k.id, createSecretKey(k.key)]));
    this.#current = this.#byId.get(kek.id)!;
  }

  /** The id of the key-encryption key new values are wrapped with. */
  get kekId(): string {
    return this.kek.id;
  }

  /** Whether the key-encryption key `id` is one this cipher opens values with (current or previous). */
  holds(id: string): boolean {
    return this.#byId.has(id);
  }

  /** Encrypts any JSON value for the field it will be stored in. */
  encrypt(value: unknown, binding: FieldBinding): string {
    const dataKey = freshBytes(32);
    const wrapped = seal(this.#current, dataKey, associatedData(binding, 'data-key'));
    const sealed = seal(dataKey, Buffer.from(JSON.stringify(value)), associatedData(binding, 'value'));
    const parts = [...wrapped, ...sealed].map((b) => b.toString('base64url'));
    return [PREFIX, this.kek.id, ...parts].join('.');
  }

  /** Decrypts a value stored by {@link encrypt} for the same binding; anything else is `integrity_failed`. */
  decrypt(stored: string, binding: FieldBinding): unknown {
    const parts = stored.split('.');
    const kek = this.#byId.get(parts[1] ?? '');
    if (parts.length !== 8 || parts[0] !== PREFIX || !kek) throw unreadable(binding);
    const [kIv, kBody, kTag, vIv, vBody, vTag] = parts.slice(2).map((p) => Buffer.from(p, 'base64url'));
    try {
      const dataKey = open(kek, kIv!, kBody!, kTag!, associatedData(binding, 'data-key'));
      const plain = open(dataKey, vIv!, vBody!, vTag!, associatedData(binding, 'value'));
      return JSON.parse(plain.toString('utf8'));
    } catch (cause) {
      throw unreadable(binding, cause);
    }
  }
}
