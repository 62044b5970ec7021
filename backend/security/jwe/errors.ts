import { PlatformError } from '../../http/errors';

/**
 * RFC 7516 section 11.5: every decryption failure (bad tag, wrong key, malformed token, a flipped bit, a
 * forbidden header) gets this one error, which never echoes any part of the input.
 */
export function decryptionFailed(cause?: unknown): PlatformError {
  return new PlatformError('decryption_failed', 'The encrypted payload could not be decrypted.', {
    status: 400,
    cause,
  });
}

/**
 * A `kid` that is missing or not (or no longer) held by the server: its own code so clients know to refetch
 * the JWKS (docs/security.md#one-error-for-every-decryption-failure). The kid itself is never echoed.
 */
export function unknownKey(): PlatformError {
  return new PlatformError(
    'unknown_key',
    'The payload is encrypted to a key this server does not hold; fetch the JWKS again.',
    { status: 400 },
  );
}

/**
 * 400 `key_not_for_service`: a JWE encrypted to one service's key (`svc:<service>:...`) sent to a path of
 * another service, or to a route the gateway answers itself; the gateway forwards it nowhere
 * (docs/security.md#encrypted-to-the-owning-service). The kid is not echoed.
 */
export function keyNotForService(): PlatformError {
  return new PlatformError(
    'key_not_for_service',
    'The payload is encrypted to the key of another service; encrypt it to the key of the service this path belongs to.',
    { status: 400 },
  );
}
