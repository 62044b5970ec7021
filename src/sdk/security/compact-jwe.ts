/**
 * The compact JWE of a request body (RFC 7516 section 7.1), made with WebCrypto alone: `alg RSA-OAEP-256`
 * (RFC 7518 section 4.3), `enc A256GCM` (RFC 7518 section 5.3). What does not change from one body to the
 * next is prepared once per key, in a {@link JweRecipient}: the imported public key and the protected
 * header's start. Per body: one random draw (key, IV and `jti` from one buffer), the content key's wrap
 * side by side with its import, then the body's sealing.
 */
import { type EncryptionJwk, JWE_ALG, JWE_ENC, type RequestBinding } from '../../protocol';
import { base64url } from './base64url';

const utf8 = new TextEncoder();
const RSA_OAEP_256 = { name: 'RSA-OAEP', hash: 'SHA-256' } as const;
const RSA_OAEP = { name: 'RSA-OAEP' } as const;
/** Bytes of the content key (A256GCM), the GCM IV (RFC 7518 section 5.3), the `jti` and the GCM tag. */
const CEK_BYTES = 32;
const IV_BYTES = 12;
const JTI_BYTES = 16;
const TAG_BYTES = 16;

/** A public key ready to encrypt bodies to: prepared once per JWKS key, reused for every body. */
export interface JweRecipient {
  /** The key's id in the JWKS, the protected header's `kid`. */
  readonly kid: string;
  /** The RSA-OAEP-256 public key, imported for `encrypt`. */
  readonly key: CryptoKey;
  /** The protected header up to and including `kid`, as JSON text without the closing brace. */
  readonly headerStart: string;
}

/** A recipient for an already imported key (callers that hold a `CryptoKey` of their own). */
export function jweRecipient(key: CryptoKey, kid: string): JweRecipient {
  return {
    kid,
    key,
    headerStart: `{"alg":${JSON.stringify(JWE_ALG)},"enc":${JSON.stringify(JWE_ENC)},"kid":${JSON.stringify(kid)}`,
  };
}

/** Imports a JWKS encryption key (RSA, `alg RSA-OAEP-256`) for encryption only, not extractable. */
export async function importRecipient(jwk: EncryptionJwk): Promise<JweRecipient> {
  const key = await crypto.subtle.importKey(
    'jwk',
    { kty: 'RSA', n: jwk.n, e: jwk.e, alg: JWE_ALG, ext: true },
    RSA_OAEP_256,
    false,
    ['encrypt'],
  );
  return jweRecipient(key, jwk.kid);
}

/**
 * Encrypts `plaintext` (JSON text) to `recipient` as a compact JWE whose protected header carries `alg`,
 * `enc`, `kid`, the request binding `htm` and `htu` (authenticated as AAD, RFC 7516 section 5.1 step 14),
 * `iat` (seconds of `issuedAtMs`) and a random `jti` (16 bytes, base64url).
 */
export async function encryptCompact(
  recipient: JweRecipient,
  plaintext: string,
  binding: RequestBinding,
  issuedAtMs: number,
): Promise<string> {
  const random = crypto.getRandomValues(new Uint8Array(CEK_BYTES + IV_BYTES + JTI_BYTES));
  const cekBytes = random.subarray(0, CEK_BYTES);
  const iv = random.subarray(CEK_BYTES, CEK_BYTES + IV_BYTES);
  const header =
    `${recipient.headerStart},"htm":${JSON.stringify(binding.htm)},"htu":${JSON.stringify(binding.htu)}` +
    `,"iat":${Math.floor(issuedAtMs / 1000)},"jti":"${base64url(random.subarray(CEK_BYTES + IV_BYTES))}"}`;
  const protectedHeader = base64url(utf8.encode(header));
  // The key is wrapped while the content key is imported: the wrap needs only its bytes, so the body's
  // sealing is the one step that waits for the import (in a browser each WebCrypto call is a round trip
  // to another thread, and these two overlap).
  const wrapping = crypto.subtle.encrypt(RSA_OAEP, recipient.key, cekBytes);
  const sealing = crypto.subtle
    .importKey('raw', cekBytes, 'AES-GCM', false, ['encrypt'])
    .then((cek) =>
      crypto.subtle.encrypt(
        { name: 'AES-GCM', iv, additionalData: utf8.encode(protectedHeader) },
        cek,
        utf8.encode(plaintext),
      ),
    );
  const [wrapped, sealed] = await Promise.all([wrapping, sealing]);
  // WebCrypto's AES-GCM gives the ciphertext followed by the tag: two views of one buffer.
  const tagAt = sealed.byteLength - TAG_BYTES;
  return `${protectedHeader}.${base64url(new Uint8Array(wrapped))}.${base64url(iv)}.${base64url(
    new Uint8Array(sealed, 0, tagAt),
  )}.${base64url(new Uint8Array(sealed, tagAt))}`;
}
