/**
 * One process of `bench/password-hash.ts`: checks a password `count` times, `concurrency` at a time, against
 * a stored hash with the scrypt parameters given, through the server's own `verifyPassword` (which takes the
 * parameters from the stored hash, as a sign-in does). Prints nothing; its whole run is what is measured.
 *
 *   tsx bench/support/password-checks.ts <N> <r> <p> <count> <concurrency>
 */
import { randomBytes, scryptSync } from 'node:crypto';
import { verifyPassword } from '../../backend/auth/passwords';

const [N, r, p, count, concurrency] = process.argv.slice(2).map(Number) as [
  number,
  number,
  number,
  number,
  number,
];
const salt = randomBytes(16);
const password = 'correct horse battery staple';
const key = scryptSync(password.normalize('NFKC'), salt, 64, { N, r, p, maxmem: 64 * 1024 * 1024 });
const stored = ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');

let next = 0;
let wrong = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next++ < count) if (!(await verifyPassword(password, stored))) wrong++;
  }),
);
if (wrong > 0) throw new Error(`${wrong} checks failed`);
