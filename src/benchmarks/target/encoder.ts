import type { SecurityConfig } from '../../protocol';
import { jsonEncoder, type PayloadEncoder } from './encryptor';

/**
 * The body encoder for a target: plain JSON when it has no security endpoint or its mode is `disabled`,
 * otherwise the SDK's `encryptPayload` (a {@link SecurityClient} of its own per generator thread, pointed
 * at the target), so the harness encrypts exactly what the Desk would: `metadata` mode the bodies of
 * DocTypes with `pii`/`encrypted` fields, `strict` every mutating body, `selective` the configured routes.
 * The JWKS is fetched before the load starts, so key import never lands in a measured request.
 */
export async function createEncoder(
  security: SecurityConfig | null,
  targetUrl: string,
  fetchImpl: typeof globalThis.fetch = globalThis.fetch,
): Promise<PayloadEncoder> {
  if (!security || security.mode === 'disabled') return jsonEncoder;
  // Loaded only for a target that encrypts: the SDK's cryptography is not read otherwise.
  const { SecurityClient } = await import('../../sdk/security');
  const client = new SecurityClient({
    baseUrl: targetUrl,
    configUrl: `${targetUrl}/api/v1/security/config`,
    fetch: fetchImpl,
  });
  await client.getKey();
  return {
    encode: (body, url, method, schema) => client.encryptPayload(body, url, method, schema),
    refresh: () => client.refreshKeys(),
  };
}
