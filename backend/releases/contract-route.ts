import { Hono } from 'hono';
import { INTERNAL_HEADERS } from '../auth/internal-auth';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import type { ContractFingerprint } from './fingerprint';

/**
 * Path, on a MACROSERVICE service, of the contract its backend runs with: what a gateway checks a release
 * against before it promotes it (docs/mfe-teams.md#the-contract-gate).
 */
export const RELEASE_CONTRACT_PATH = '/api/release-contract';

/**
 * `GET /api/release-contract` on a service: `{ data: <contract fingerprint> }`, only to a request its gateway
 * signed (the trust check has already refused a signature that does not verify), 401 `untrusted_caller`
 * otherwise.
 */
export function releaseContractRoutes(fingerprint: ContractFingerprint): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get(RELEASE_CONTRACT_PATH, (c) => {
    if (c.req.header(INTERNAL_HEADERS.signature) === undefined) {
      throw new PlatformError('untrusted_caller', 'This service only answers requests from its gateway.', {
        status: 401,
      });
    }
    c.header('Cache-Control', 'no-store');
    return c.json({ data: fingerprint });
  });
  return routes;
}
