/**
 * The payload-encryption keys a mock backend holds: what the security handlers publish (config `kid`, JWKS)
 * and what the data handlers decrypt with. Two implementations share this interface: the Node one over the
 * backend's real key store and JWE decryption (`node-key-ring.ts`), and a WebCrypto one for the browser worker
 * (`webcrypto-key-ring.ts`), which cannot load Node modules.
 */
import type { Jwks } from '../../src/protocol';

/** Keys of a mock backend. */
export interface MockKeyRing {
  /** `kid` of the key new payloads should use. */
  activeKid(): Promise<string>;
  /** Public members of every usable key, newest first. */
  jwks(): Promise<Jwks>;
  /**
   * Decrypts a compact JWE made for `method` + `path` and parses its JSON. Throws the backend's
   * `PlatformError`s: `unknown_key`, `decryption_failed`, `invalid_json` (all 400).
   */
  decrypt(token: string, method: string, path: string): Promise<unknown>;
  /** Makes a new active key; with `dropOld`, previous keys stop decrypting at once (past their grace). */
  rotate(options?: { dropOld?: boolean }): Promise<void>;
}
