/**
 * Shape checks of the two security answers. The config decides whether a body is encrypted, so an answer
 * that does not name a known mode is refused rather than guessed at.
 */
import {
  ENCRYPTION_MODES,
  type EncryptionJwk,
  type EncryptionMode,
  type SecurityConfig,
} from '../../protocol';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Validates `GET /api/v1/security/config`; throws a plain Error naming the bad member. */
export function parseSecurityConfig(body: unknown): SecurityConfig {
  if (!isRecord(body)) throw new Error('security config is not an object');
  const { mode, jwks_uri: jwksUri, routes, kid } = body;
  if (typeof mode !== 'string' || !ENCRYPTION_MODES.includes(mode as EncryptionMode)) {
    throw new Error('security config has an unknown mode');
  }
  if (typeof jwksUri !== 'string' || jwksUri === '') throw new Error('security config has no jwks_uri');
  if (routes !== undefined && (!Array.isArray(routes) || !routes.every((r) => typeof r === 'string'))) {
    throw new Error('security config routes must be strings');
  }
  if (kid !== undefined && typeof kid !== 'string') throw new Error('security config kid must be a string');
  return {
    mode: mode as EncryptionMode,
    jwks_uri: jwksUri,
    routes: (routes as string[] | undefined) ?? [],
    kid: (kid as string | undefined) ?? '',
  };
}

/**
 * The RSA encryption keys of a JWKS document (docs/security.md#security-endpoints: `use: enc`,
 * `alg: RSA-OAEP-256`, with a `kid`); signature keys and anything carrying private members are skipped.
 */
export function parseJwks(body: unknown): EncryptionJwk[] {
  if (!isRecord(body) || !Array.isArray(body.keys)) throw new Error('JWKS has no keys list');
  return body.keys.filter(
    (k): k is EncryptionJwk =>
      isRecord(k) &&
      k.kty === 'RSA' &&
      k.use === 'enc' &&
      k.alg === 'RSA-OAEP-256' &&
      typeof k.kid === 'string' &&
      typeof k.n === 'string' &&
      typeof k.e === 'string' &&
      k.d === undefined,
  );
}
