/**
 * The page's default SecurityClient. It needs no setup in the Desk: its config URL comes from
 * `__PLATFORM_CONFIG__.securityConfigUrl` on first use. Tests and other hosts call `configure()` on it.
 */
import type { FlaggedSchema } from '../../protocol';
import type { EncryptedPayload } from './encrypt-payload';
import { SecurityClient } from './security-client';

/** The shared SecurityClient used by {@link encryptPayload} and the default `fetchWithCredentials`. */
export const securityClient: SecurityClient = new SecurityClient();

/**
 * `encryptPayload(body, url, method, schema?, service?)` (docs/sdk.md#payload-encryption-and-http) over the
 * default client; `service`, the owner of the target, picks that service's own key when it publishes one.
 *
 * @example
 * const { body, contentType } = await encryptPayload({ usr, pwd }, '/api/method/login', 'POST');
 * await fetch('/api/method/login', { method: 'POST', body, headers: { 'Content-Type': contentType } });
 */
export function encryptPayload(
  body: unknown,
  url: string,
  method: string,
  schema?: FlaggedSchema,
  service?: string,
): Promise<EncryptedPayload> {
  return securityClient.encryptPayload(body, url, method, schema, service);
}
