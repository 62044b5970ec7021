/** Wire types of the security endpoints (docs/security.md#security-endpoints), shared by backend and SDK. */

/** Payload-encryption modes. */
export type EncryptionMode = 'disabled' | 'selective' | 'metadata' | 'strict';

/** `GET /api/v1/security/config`. */
export interface SecurityConfig {
  mode: EncryptionMode;
  /** Relative path of the JWKS endpoint. */
  jwks_uri: string;
  /** Path globs that `selective` mode encrypts (built-in routes merged with configured ones). */
  routes: string[];
  /** `kid` of the active encryption key. */
  kid: string;
}

/** Public members of an RSA encryption key in the JWKS. */
export interface EncryptionJwk {
  kty: 'RSA';
  use: 'enc';
  alg: 'RSA-OAEP-256';
  kid: string;
  n: string;
  e: string;
}

/** `GET /api/v1/security/jwks`. */
export interface Jwks {
  keys: Array<EncryptionJwk | Record<string, unknown>>;
}

/**
 * JWE protected-header members binding a token to its request
 * (docs/security.md#a-jwe-is-bound-to-its-request, names from RFC 9449).
 */
export interface RequestBinding {
  /** Upper-case HTTP method. */
  htm: string;
  /** Request path without query. */
  htu: string;
}

/** The only JWE algorithms accepted (docs/security.md#one-allowlist-for-jwe). */
export const JWE_ALG = 'RSA-OAEP-256';
export const JWE_ENC = 'A256GCM';
/** Content type of an encrypted body. */
export const JOSE_CONTENT_TYPE = 'application/jose';
