/**
 * How passwords are hashed and checked. Hashes are self-describing strings (`<scheme>$...`), so the scheme
 * or its cost can change without breaking stored ones. Implementations: `ScryptPasswordHasher` on the server
 * (./passwords.ts, Node's scrypt) and `Pbkdf2PasswordHasher` (WebCrypto, runs in browsers: the offline mocks).
 */
export interface PasswordHasher {
  /** Hashes a password with a fresh random salt. */
  hash(password: string): Promise<string>;
  /**
   * Checks a password against a stored hash in constant time. With no stored hash (unknown user) it still
   * does the work of one check, so response time does not reveal which user names exist.
   */
  verify(password: string, stored: string | undefined): Promise<boolean>;
  /**
   * True when `stored` was made with other parameters (or another scheme) than new hashes: after a sign-in
   * that checked it, the password is hashed again with the current ones.
   */
  needsRehash(stored: string): boolean;
}
