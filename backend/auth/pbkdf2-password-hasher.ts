import { base64url } from 'jose';
import { constantTimeEqual, randomBytes, randomToken } from './digest';
import type { PasswordHasher } from './password-hasher';

/** PBKDF2-HMAC-SHA256 iterations of new hashes. */
const ITERATIONS = 600_000;
const HASH_BITS = 256;

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(password.normalize('NFKC')),
    'PBKDF2',
    false,
    ['deriveBits'],
  );
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt: salt as Uint8Array<ArrayBuffer>, iterations },
    key,
    HASH_BITS,
  );
  return base64url.encode(new Uint8Array(bits));
}

/**
 * Password hashing with WebCrypto PBKDF2-HMAC-SHA256 (RFC 8018), for processes without Node's scrypt (the
 * offline mocks in a browser). Hashes read `pbkdf2-sha256$<iterations>$<salt>$<hash>` (base64url).
 */
export class Pbkdf2PasswordHasher implements PasswordHasher {
  #dummy: Promise<string> | undefined;

  /** `iterations` may be lowered where hashing cost does not matter (tests, the offline mock). */
  constructor(private readonly iterations = ITERATIONS) {}

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const hash = await derive(password, salt, this.iterations);
    return ['pbkdf2-sha256', this.iterations, base64url.encode(salt), hash].join('$');
  }

  needsRehash(stored: string): boolean {
    return !stored.startsWith(`pbkdf2-sha256$${this.iterations}$`);
  }

  async verify(password: string, stored: string | undefined): Promise<boolean> {
    this.#dummy ??= this.hash(randomToken(16));
    const encoded = stored ?? (await this.#dummy);
    const [scheme, iterations, salt, hash] = encoded.split('$');
    const count = Number(iterations);
    if (scheme !== 'pbkdf2-sha256' || !salt || !hash || !Number.isSafeInteger(count) || count < 1)
      return false;
    const actual = await derive(password, base64url.decode(salt), count);
    return stored !== undefined && constantTimeEqual(actual, hash);
  }
}
