import type { KeyObject, webcrypto } from 'node:crypto';
import type { EncryptionKey } from '../keys/key-store';
import { nodeCrypto } from './node-crypto';

/** The private halves as node:crypto holds them, made once per WebCrypto key. */
const keyObjects = new WeakMap<webcrypto.CryptoKey, KeyObject>();

/**
 * Unwraps a JWE's content-encryption key with RSA-OAEP (SHA-256) and `key`'s private half; rejects or throws
 * when the key does not open it.
 *
 * On Node this is node:crypto's `privateDecrypt`, synchronous, on the event loop: about 0.3 ms of CPU for a
 * 2048-bit key on the reference machine. WebCrypto's `decrypt` would run it on libuv's thread pool, which
 * lets a server whose event loop is its bottleneck use another core, and costs a job and a wake-up on each
 * side. On the reference machine an encrypted create cost about a tenth less CPU with the unwrap on the loop,
 * its rate at saturation within the spread of runs, while a request that does almost nothing else was
 * answered a quarter less often (docs/performance.md#the-unwrap-on-the-event-loop).
 * In a browser (the offline mock) it is WebCrypto.
 */
export async function unwrapCek(
  key: Pick<EncryptionKey, 'privateKey'>,
  encryptedKey: Uint8Array<ArrayBuffer>,
): Promise<Uint8Array<ArrayBuffer>> {
  if (nodeCrypto) {
    let keyObject = keyObjects.get(key.privateKey);
    if (keyObject === undefined) {
      keyObject = nodeCrypto.KeyObject.from(key.privateKey);
      keyObjects.set(key.privateKey, keyObject);
    }
    const cek = nodeCrypto.privateDecrypt(
      { key: keyObject, padding: nodeCrypto.constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      encryptedKey,
    );
    return new Uint8Array(cek.buffer, cek.byteOffset, cek.byteLength) as Uint8Array<ArrayBuffer>;
  }
  return new Uint8Array(await crypto.subtle.decrypt({ name: 'RSA-OAEP' }, key.privateKey, encryptedKey));
}
