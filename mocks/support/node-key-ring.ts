/**
 * The Node key ring of the mocks: the backend's own MemoryKeyStore and `decryptRequestJwe` +
 * `parseDecryptedJson`, so what the SDK encrypts in a test is opened by exactly the server's code.
 */
import { decryptRequestJwe } from '../../backend/security/jwe/decrypt-request-jwe';
import { parseDecryptedJson } from '../../backend/security/jwe/parse-decrypted-json';
import { MemoryKeyStore } from '../../backend/security/keys/memory-key-store';
import type { MockKeyRing } from './key-ring';

/** Creates a key ring with one fresh RSA-2048 key. */
export async function createNodeKeyRing(): Promise<MockKeyRing> {
  let clock = Date.now();
  // The clock only moves forward on `rotate({ dropOld })`, past the grace period, so old keys expire exactly then.
  const graceMs = 60_000;
  const store = await MemoryKeyStore.create({ graceMs, now: () => clock });
  return {
    activeKid: async () => (await store.active()).kid,
    jwks: async () => ({ keys: (await store.usable()).map((k) => k.publicJwk) }),
    async decrypt(token, method, path) {
      const decoded = safeDecode(path);
      const paths = decoded === path ? [path] : [path, decoded];
      const { plaintext } = await decryptRequestJwe(token, { method, paths }, store);
      return parseDecryptedJson(plaintext);
    },
    async rotate(options = {}) {
      await store.rotate();
      if (options.dropOld) clock += graceMs + 1;
    },
  };
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
