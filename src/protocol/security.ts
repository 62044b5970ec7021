/** Wire types and constants of the payload-encryption endpoints and of the JWE that carries a body. */

/** Every payload-encryption mode, weakest first; a config naming anything else is refused. */
export const ENCRYPTION_MODES = ['disabled', 'selective', 'metadata', 'strict'] as const;

/** A payload-encryption mode; `requiresEncryption` says what each one encrypts. */
export type EncryptionMode = (typeof ENCRYPTION_MODES)[number];

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
 * JWE protected-header members binding a token to its request, so a token replayed on another method or
 * path is refused. The names are DPoP's (RFC 9449).
 */
export interface RequestBinding {
  /** Upper-case HTTP method. */
  htm: string;
  /** Request path without query. */
  htu: string;
}

/** The only JWE key-management algorithm accepted. */
export const JWE_ALG = 'RSA-OAEP-256';
/** The only JWE content-encryption algorithm accepted. */
export const JWE_ENC = 'A256GCM';
