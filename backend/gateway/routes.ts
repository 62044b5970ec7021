import { Hono } from 'hono';
import { DISCOVERY_QUERY_PATH, REMOTES_PATH, SERVICES_PATH, type ServicesMap } from '../../src/protocol';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { requestHeader } from '../http/node-request';
import { mediaType } from '../middleware/payload-decryption';
import { createDiscoveryAnswers } from './discovery-cache';
import { bodyTooLarge, type DiscoveryLimits, lookupOwner, remotesMap } from './oracle';
import { textLimited } from './read-limited';
import type { ServiceDirectory } from './service-directory';

/** Status and headers of a discovery query's answer (shared: nothing changes them). */
const ANSWER_INIT: ResponseInit = {
  status: 200,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
};

/** What {@link gatewayRoutes} reads: the directory it answers from and the request limits. */
export interface GatewayRouteDeps {
  directory: ServiceDirectory;
  /** `discoveryLimits(config)`. */
  limits: DiscoveryLimits;
}

/**
 * Gateway discovery endpoints (docs/http-api.md#gateway-discovery), public by design (docs/security.md#auth):
 * - `GET /api/gateway/remotes`: the remotes map of services that ship a UI remote;
 * - `GET /api/gateway/services`: every registered service (the Desk lists them all in its navigation);
 * - `POST /api/gateway/discovery/query`: batch owner resolution with the manifest `rev` handshake;
 * - `GET /api/gateway/discovery/:resource`: one owner, 404 `unknown_resource`.
 * Answers follow the directory, so a manifest change is visible at once (a query's answer is reused only
 * until the directory changes); they are `Cache-Control: no-cache` for the same reason.
 */
export function gatewayRoutes(deps: GatewayRouteDeps): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { directory, limits } = deps;
  const answers = createDiscoveryAnswers(directory, limits);

  routes.get(REMOTES_PATH, (c) => {
    c.header('Cache-Control', 'no-cache');
    return c.json(remotesMap(directory));
  });

  routes.get(SERVICES_PATH, (c) => {
    const services: ServicesMap = {};
    for (const m of directory.list())
      services[m.service] = {
        url: m.url,
        apiUrl: m.apiUrl,
        metaUrl: m.metaUrl,
        ...(m.integrity ? { integrity: m.integrity } : {}),
      };
    c.header('Cache-Control', 'no-cache');
    return c.json(services);
  });

  // The kept bytes with a plain header object: the adapter writes them as they are, without building a
  // Headers object to read them back from (nothing before this route sets a header on a successful request).
  const tooLarge = () => bodyTooLarge(limits);
  const answer = (raw: unknown) =>
    new Response(answers.answerBytes(raw) as Uint8Array<ArrayBuffer>, ANSWER_INIT);

  // Not an async function: a body already read is answered without a promise; one still to read is one
  // promise, its answer.
  routes.post(DISCOVERY_QUERY_PATH, (c): Response | Promise<Response> => {
    const declared = requestHeader(c, 'content-length');
    if (declared !== undefined && Number(declared) > limits.maxBodyBytes) throw bodyTooLarge(limits);
    // A body the decryption middleware already produced (an encrypted query in strict mode) is used as is.
    const parsed: unknown = c.get('jsonBody');
    if (parsed !== undefined) return answer(parsed);
    if (mediaType(requestHeader(c, 'content-type')) !== 'application/json') {
      throw new PlatformError('unsupported_media_type', 'Send the discovery query as application/json.', {
        status: 415,
      });
    }
    const text = textLimited(c, limits.maxBodyBytes, tooLarge);
    return typeof text === 'string' ? answer(text) : text.then(answer);
  });

  routes.get('/api/gateway/discovery/:resource', (c) => {
    c.header('Cache-Control', 'no-cache');
    return c.json(lookupOwner(directory, c.req.param('resource')));
  });

  return routes;
}
