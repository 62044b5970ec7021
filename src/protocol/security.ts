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

/**
 * The `kid` of a MACROSERVICE service's own encryption key starts with `svc:<service>:` (then the key's
 * RFC 7638 thumbprint), so a JWE names the one service that can open it and the gateway knows where it may
 * go without opening it (docs/security.md#encrypted-to-the-owning-service). Gateway keys are bare thumbprints.
 */
export const SERVICE_KID_PREFIX = 'svc:';

/** The `kid` prefix of `service`'s own keys: `svc:<service>:`. */
export function serviceKidPrefix(service: string): string {
  return `${SERVICE_KID_PREFIX}${service}:`;
}

/** The service a `kid` names (`svc:<service>:<thumbprint>`), or undefined for any other kid. */
export function serviceOfKid(kid: string): string | undefined {
  if (!kid.startsWith(SERVICE_KID_PREFIX)) return undefined;
  const end = kid.indexOf(':', SERVICE_KID_PREFIX.length);
  return end > SERVICE_KID_PREFIX.length && end < kid.length - 1
    ? kid.slice(SERVICE_KID_PREFIX.length, end)
    : undefined;
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
