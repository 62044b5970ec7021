/** Payload encryption (docs/sdk.md#payload-encryption-and-http): security config, JWKS keys by kid, encryptPayload. */

export type {
  EncryptionJwk,
  EncryptionMode,
  FlaggedSchema,
  Jwks,
  RequestBinding,
  SecurityConfig,
} from '../../protocol';
export {
  globToRegExp,
  hasFlaggedFields,
  JOSE_CONTENT_TYPE,
  JSON_CONTENT_TYPE,
  JWE_ALG,
  JWE_ENC,
  matchesRoute,
  requiresEncryption,
  SECURITY_CONFIG_PATH,
} from '../../protocol';
export type { JweRecipient } from './compact-jwe';
export { encryptPayload, securityClient } from './default-client';
export type { EncryptedPayload } from './encrypt-payload';
export { encryptJwe, requestBinding } from './encrypt-payload';
export type { SecurityClientOptions } from './security-client';
export { SecurityClient } from './security-client';
