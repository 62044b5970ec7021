import { base64url } from 'jose';
import { serviceOfKid } from '../../../src/protocol';
import type { KeyStore } from '../keys/key-store';
import { decryptionFailed, unknownKey } from './errors';
import { openA256Gcm } from './open-gcm';
import { parseProtectedHeader, type RequestJweHeader, type RequestTarget } from './protected-header';
import { unwrapCek } from './unwrap-cek';

/**
 * Five base64url segments and nothing else (no whitespace, no padding); only the ciphertext may be empty
 * (an empty plaintext, which then fails as JSON).
 */
const COMPACT_JWE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+$/;
const GCM_IV_BYTES = 12;
const GCM_TAG_BYTES = 16;
const CEK_BYTES = 32; // A256GCM

/** A request JWE encrypted to a MACROSERVICE service's own key, checked but not opened. */
export interface SealedRequest {
  /** The compact JWE, forwarded as it came. */
  token: string;
  /** The service its `kid` names, the only one that can open it. */
  service: string;
  header: RequestJweHeader;
}

/**
 * What a gateway checks of a JWE without opening it (docs/security.md#encrypted-to-the-owning-service): the
 * compact shape and the protected header (size, allowlist, `alg`/`enc`, `htm`/`htu` binding), exactly as
 * {@link decryptRequestJwe} does before its crypto. Returns the service its `kid` names, or undefined when
 * the kid names none (a key of this process's own ring: decrypt it here). Nothing here is authenticated yet:
 * the owning service decrypts, which authenticates the header as AAD, and runs its own replay window.
 */
export function inspectSealedJwe(token: string, target: RequestTarget): SealedRequest | undefined {
  if (!COMPACT_JWE.test(token)) throw decryptionFailed();
  const header = parseProtectedHeader(token.slice(0, token.indexOf('.')), target);
  const service = serviceOfKid(header.kid);
  return service === undefined ? undefined : { token, service, header };
}

/** The result of decrypting a request JWE. */
export interface DecryptedRequest {
  header: RequestJweHeader;
  plaintext: Uint8Array;
}

/**
 * Decrypts a compact JWE request body (docs/security.md#rules: one allowlist for JWE, one error for every
 * failure, bound to its request): `alg RSA-OAEP-256`, `enc A256GCM` only, the key found by `kid` in the
 * server's own store, the protected header bound to the request's method and path.
 *
 * All header checks run before any crypto. The CEK is unwrapped with RSA-OAEP (`unwrapCek`) and the content
 * is opened with AES-256-GCM using the ASCII protected header as AAD (RFC 7516 section 5.2), which
 * authenticates `htm`/`htu` and `kid` (`openA256Gcm`); both use node:crypto on the server and WebCrypto in a
 * browser, so the same code decrypts on the server and in the offline mock inside a browser.
 * Compressed payloads (`zip`) are refused by the header check, so nothing is ever inflated.
 *
 * Produces exactly the same bytes as jose `compactDecrypt(token, key, { keyManagementAlgorithms:
 * ['RSA-OAEP-256'], contentEncryptionAlgorithms: ['A256GCM'] })` on the tokens it accepts; it exists because
 * it is faster and refuses more (unknown header members, non-canonical base64url).
 */
export async function decryptRequestJwe(
  token: string,
  target: RequestTarget,
  keys: KeyStore,
): Promise<DecryptedRequest> {
  if (!COMPACT_JWE.test(token)) throw decryptionFailed();
  const [protectedB64, encryptedKeyB64, ivB64, ciphertextB64, tagB64] = token.split('.') as [
    string,
    string,
    string,
    string,
    string,
  ];
  const header = parseProtectedHeader(protectedB64, target);
  const encryptedKey = canonical(encryptedKeyB64);
  const iv = canonical(ivB64);
  const ciphertext = canonical(ciphertextB64);
  const tag = canonical(tagB64);
  if (iv.length !== GCM_IV_BYTES || tag.length !== GCM_TAG_BYTES) throw decryptionFailed();
  const key = await keys.find(header.kid);
  if (!key) throw unknownKey();
  if (encryptedKey.length !== modulusBytesOf(key.publicJwk.n)) throw decryptionFailed();

  let cek: Uint8Array<ArrayBuffer>;
  try {
    cek = await unwrapCek(key, encryptedKey);
    if (cek.length !== CEK_BYTES) cek = randomCek();
  } catch {
    // RFC 7516 section 11.5: on a key-unwrap failure continue with a random CEK, so a bad key and a bad tag
    // take the same path and give the same answer.
    cek = randomCek();
  }
  try {
    return { header, plaintext: await openA256Gcm(cek, iv, protectedB64, ciphertext, tag) };
  } catch (cause) {
    throw decryptionFailed(cause);
  }
}

function randomCek(): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(CEK_BYTES));
}

/** Modulus lengths by the JWK's `n`: a key's modulus is decoded once, not on every request. */
const modulusBytes = new Map<string, number>();

function modulusBytesOf(n: string): number {
  let length = modulusBytes.get(n);
  if (length === undefined) {
    length = base64url.decode(n).length;
    if (modulusBytes.size > 64) modulusBytes.clear();
    modulusBytes.set(n, length);
  }
  return length;
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Decodes a base64url segment and refuses non-canonical spellings (a flipped padding bit would otherwise
 * decode to the same bytes and slip through). The segment's alphabet is already checked; a spelling is
 * canonical when its length is not 1 mod 4 and the bits of the last character that fall past the final
 * byte are zero (RFC 4648 section 3.5), which is checked without encoding the bytes again.
 */
function canonical(segment: string): Uint8Array<ArrayBuffer> {
  const rest = segment.length % 4;
  if (rest === 1) throw decryptionFailed();
  if (rest !== 0) {
    const last = BASE64URL.indexOf(segment[segment.length - 1]!);
    if (last & (rest === 2 ? 0x0f : 0x03)) throw decryptionFailed();
  }
  let bytes: Uint8Array;
  try {
    bytes = base64url.decode(segment);
  } catch (cause) {
    throw decryptionFailed(cause);
  }
  return bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
}
