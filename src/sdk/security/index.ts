/**
 * Payload encryption (docs/sdk.md#payload-encryption-and-http): security config, JWKS keys by kid,
 * encryptPayload.
 */
export { encryptPayload, securityClient } from './default-client';
export type { EncryptedPayload, FlaggedSchema } from './encrypt-payload';
export {
  encryptJwe,
  hasFlaggedFields,
  JSON_CONTENT_TYPE,
  requestBinding,
  requiresEncryption,
} from './encrypt-payload';
export type { EncryptionJwk, EncryptionMode, Jwks, RequestBinding, SecurityConfig } from './protocol';
export { JOSE_CONTENT_TYPE, JWE_ALG, JWE_ENC } from './protocol';
export { globToRegExp, matchesRoute } from './route-match';
export type { SecurityClientOptions } from './security-client';
export { SECURITY_CONFIG_PATH, SecurityClient } from './security-client';
