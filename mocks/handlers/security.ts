/**
 * Security endpoint handlers (docs/security.md#security-endpoints): the active policy with the key ring's
 * active `kid`, and the JWKS of every usable key. The policy is the backend's `createEncryptionPolicy`, so
 * the reported `routes` are the built-in ones merged with the configured ones, as the server reports them.
 */
import { type HttpHandler, HttpResponse, http } from 'msw';
import type { SecurityConfig } from '../../src/protocol';
import type { MockEnvironment } from '../support/environment';

/** Path of the JWKS the config points at. */
export const MOCK_JWKS_URI = '/api/v1/security/jwks';

/** Handlers of `/api/v1/security/*` on any origin. */
export function securityHandlers(env: MockEnvironment): HttpHandler[] {
  return [
    http.get('*/api/v1/security/config', async () => {
      const config: SecurityConfig = {
        mode: env.policy.mode,
        jwks_uri: MOCK_JWKS_URI,
        routes: env.policy.routes,
        kid: await env.keyRing.activeKid(),
      };
      return HttpResponse.json(config, { headers: { 'Cache-Control': 'no-store' } });
    }),
    http.get('*/api/v1/security/jwks', async () =>
      HttpResponse.json(await env.keyRing.jwks(), { headers: { 'Cache-Control': 'public, max-age=300' } }),
    ),
  ];
}
