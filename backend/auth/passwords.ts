import { randomBytes, type ScryptOptions, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import type { PasswordHasher } from './password-hasher';

/**
 * scrypt cost parameters (RFC 7914) of new hashes: N = 2^14, r = 8, p = 2, a 64-byte hash. The work per hash
 * is that of N = 2^15 with p = 1 (scrypt's work grows with N x p), in 16 MiB of memory instead of 32.
 *
 * The size decides what a hash costs on top of its work. glibc's allocator maps an allocation above 32 MiB
 * fresh from the system on every call and returns it when freed, and on a virtual machine each of the 8,192
 * pages first touched is a fault the hypervisor handles: at N = 2^15, p = 1 more than half of a hash's 180 ms
 * went there, and two hashes at once stalled the thread pool's other work. One of 16 MiB, after the first,
 * comes from the arena of the thread-pool thread that hashed and stays resident there
 * (docs/performance.md#a-sign-ins-memory). Stored hashes name their own parameters and still verify.
 */
const COST = { N: 16_384, r: 8, p: 2 } as const;
const KEY_LENGTH = 64;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(
      password.normalize('NFKC'),
      salt,
      KEY_LENGTH,
      { ...options, maxmem: 64 * 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(key)),
    ),
  );
}

/**
 * Hashes a password with scrypt and a random salt. The result is self-describing,
 * `scrypt$<N>$<r>$<p>$<salt>$<hash>` (base64url), so the cost can be raised without breaking old hashes.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/**
 * What a password is checked against when the user does not exist, so both paths cost one scrypt with the
 * current parameters. It is a constant rather than the hash of a random password made on first use: such a
 * hash costs the first sign-in a second scrypt and its memory. Nothing can match it, since a missing user never verifies (`stored` is undefined).
 */
const DUMMY_HASH = ['scrypt', COST.N, COST.r, COST.p, 'A'.repeat(22), 'A'.repeat(86)].join('$');

/**
 * Checks a password against a stored hash in constant time. With no stored hash (unknown user) it still
 * spends one scrypt, so response time does not reveal which user names exist.
 */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const encoded = stored ?? DUMMY_HASH;
  const [scheme, n, r, p, saltB64, hashB64] = encoded.split('$');
  if (scheme !== 'scrypt' || !saltB64 || !hashB64) return false;
  const expected = Buffer.from(hashB64, 'base64url');
  const actual = await scrypt(password, Buffer.from(saltB64, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return stored !== undefined && actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The prefix of a hash made with the current parameters. */
const CURRENT_PREFIX = `scrypt$${COST.N}$${COST.r}$${COST.p}$`;

/** True when `stored` was not made with the current parameters (see {@link PasswordHasher.needsRehash}). */
export function needsRehash(stored: string): boolean {
  return !stored.startsWith(CURRENT_PREFIX);
}

/** The server's {@link PasswordHasher}: scrypt through Node's crypto ({@link hashPassword}, {@link verifyPassword}). */
export class ScryptPasswordHasher implements PasswordHasher {
  hash(password: string): Promise<string> {
    return hashPassword(password);
  }

  verify(password: string, stored: string | undefined): Promise<boolean> {
    return verifyPassword(password, stored);
  }

  needsRehash(stored: string): boolean {
    return needsRehash(stored);
  }
}
