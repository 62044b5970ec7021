/**
 * The payload-encryption rule of docs/sdk.md#payload-encryption-and-http and the JWE that carries an
 * encrypted body.
 *
 * | Mode      | Encrypts when                                                     |
 * |-----------|-------------------------------------------------------------------|
 * | disabled  | never: the body goes as `application/json`                        |
 * | selective | the url's path matches a configured route glob                    |
 * | metadata  | `schema` has a field flagged `encrypted` or `pii`                 |
 * | strict    | the method is mutating (POST, PUT, PATCH, DELETE)                 |
 *
 * Encryption is confidentiality only (docs/security.md#encryption-is-confidentiality-not-authentication); the
 * server enforces the mode (docs/security.md#the-server-enforces-the-mode), the client cooperates. When the
 * rule says encrypt, any failure is an `encryption_failed` error: never plaintext.
 */
import { CompactEncrypt } from 'jose';
import { JWE_ALG, JWE_ENC, type RequestBinding, type SecurityConfig } from './protocol';
import { matchesRoute, pathOf } from './route-match';

/** Anything shaped like a DocType schema: `DocTypeSchema` from the data protocol qualifies. */
export interface FlaggedSchema {
  fields: ReadonlyArray<{ encrypted?: boolean; pii?: boolean }>;
}

/** What {@link encryptPayload} returns: the request body and its content type. */
export interface EncryptedPayload {
  body: string;
  contentType: string;
}

/** Content type of a plain body. */
export const JSON_CONTENT_TYPE = 'application/json';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * True when `schema` has a field flagged `encrypted` or `pii` (docs/security.md#payload-encryption-modes: pii
 * counts as encrypted in metadata).
 */
export function hasFlaggedFields(schema: FlaggedSchema | undefined): boolean {
  return Boolean(schema?.fields?.some((f) => f.encrypted === true || f.pii === true));
}

/** Applies the four-mode table: must a body sent with `method` to `url` be encrypted under `config`? */
export function requiresEncryption(
  config: Pick<SecurityConfig, 'mode' | 'routes'>,
  url: string,
  method: string,
  schema?: FlaggedSchema,
): boolean {
  switch (config.mode) {
    case 'disabled':
      return false;
    case 'selective':
      return matchesRoute(url, config.routes ?? []);
    case 'metadata':
      return hasFlaggedFields(schema);
    case 'strict':
      return MUTATING.has(method.toUpperCase());
    default:
      // An unknown mode from a newer server: encrypting is the side that cannot leak.
      return true;
  }
}

/**
 * The JSON text of a body: a string is taken as JSON text already serialized; anything else is serialized.
 */
export function serializeBody(body: unknown): string {
  return typeof body === 'string' ? body : JSON.stringify(body ?? null);
}

/**
 * The request binding of docs/security.md#a-jwe-is-bound-to-its-request: upper-case method and the path
 * without query.
 */
export function requestBinding(url: string, method: string): RequestBinding {
  return { htm: method.toUpperCase(), htu: pathOf(url) };
}

/** A random token id: 16 bytes, base64url (the server's replay seen-set key). */
function randomJti(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * Encrypts `plaintext` to `key` as a compact JWE: `alg RSA-OAEP-256`, `enc A256GCM`, and a protected header
 * carrying `kid`, `htm` and `htu` (authenticated as AAD, so the server can refuse a token replayed elsewhere),
 * `iat` (seconds) and a random `jti` (so the server can refuse the same token replayed to the same request).
 * A token is for one request: encrypt again for a retry.
 */
export async function encryptJwe(
  plaintext: string,
  key: CryptoKey,
  kid: string,
  binding: RequestBinding,
): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(plaintext))
    .setProtectedHeader({
      alg: JWE_ALG,
      enc: JWE_ENC,
      kid,
      htm: binding.htm,
      htu: binding.htu,
      iat: Math.floor(Date.now() / 1000),
      jti: randomJti(),
    })
    .encrypt(key);
}
