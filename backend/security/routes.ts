import { type Context, Hono } from 'hono';
import {
  type EncryptionJwk,
  JWKS_PATH,
  type Jwks,
  SECURITY_CONFIG_PATH,
  type SecurityConfig,
} from '../../src/protocol';
import type { PlatformConfig } from '../config/schema';
import type { AppEnv } from '../http/env';
import { errorResponse } from '../http/errors';
import type { EncryptionPolicy } from './encryption-policy';
import type { KeyStore } from './keys/key-store';

function methodNotAllowed(c: Context) {
  c.header('Allow', 'GET, HEAD');
  return errorResponse(c, 405, 'method_not_allowed', `${c.req.method} is not allowed here; use GET.`);
}

/** What {@link securityRoutes} reads: the encryption settings, the keys and the policy in force. */
export interface SecurityRouteDeps {
  payloadEncryption: PlatformConfig['security']['payload_encryption'];
  keys: Pick<KeyStore, 'active' | 'usable'>;
  policy: Pick<EncryptionPolicy, 'mode' | 'routes'>;
  /**
   * A MACROSERVICE gateway: the public keys its live services publish with their manifests, listed after
   * its own (docs/security.md#encrypted-to-the-owning-service). Default none (MONOLITH).
   */
  serviceKeys?: () => readonly EncryptionJwk[];
}

/**
 * Security endpoints (docs/security.md#security-endpoints):
 * - `GET /api/v1/security/config` -> `{ mode, jwks_uri, routes, kid }`: the configured mode (no query
 *   parameter or header changes it, rule 5), the selective routes (built-in merged with configured) and the
 *   active `kid`. `Cache-Control: no-cache`, so a rotation is seen at the next boot of the shell.
 * - `GET /api/v1/security/jwks` -> `{ keys }`: the active key first, then retired keys still in their grace
 *   period, then (a gateway) every live service's published keys (`svc:<service>:...`); public members only
 *   (`kty use alg kid n e`, rule 7). `Cache-Control: public, max-age=
 *   jwks_max_age_seconds`, which startup checks is shorter than `key_grace_seconds`.
 * Any other method on either path is 405 `method_not_allowed` with `Allow: GET, HEAD`.
 */
export function securityRoutes(deps: SecurityRouteDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { payloadEncryption: pe, keys, policy } = deps;

  app.get(SECURITY_CONFIG_PATH, async (c) => {
    const body: SecurityConfig = {
      mode: policy.mode,
      jwks_uri: pe.jwks_uri,
      routes: policy.routes,
      kid: (await keys.active()).kid,
    };
    c.header('Cache-Control', 'no-cache');
    return c.json(body);
  });
  app.all(SECURITY_CONFIG_PATH, methodNotAllowed);

  const jwksPaths = [...new Set([JWKS_PATH, pe.jwks_uri])];
  for (const path of jwksPaths) {
    app.get(path, async (c) => {
      const own = (await keys.usable()).map((k): EncryptionJwk => ({ ...k.publicJwk }));
      const services = (deps.serviceKeys?.() ?? []).map(
        ({ kty, use, alg, kid, n, e }): EncryptionJwk => ({ kty, use, alg, kid, n, e }),
      );
      const body: Jwks = { keys: [...own, ...services] };
      c.header('Cache-Control', `public, max-age=${pe.jwks_max_age_seconds}`);
      return c.json(body);
    });
    app.all(path, methodNotAllowed);
  }
  return app;
}
