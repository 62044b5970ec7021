/**
 * Gateway discovery handlers (docs/http-api.md#gateway-discovery), answered by the backend's own oracle
 * (`parseDiscoveryQuery`, `answerDiscoveryQuery`, `remotesMap`, `lookupOwner`) over the environment's
 * directory, so the mock can never drift from the real gateway.
 */
import { type HttpHandler, HttpResponse, http } from 'msw';
import {
  answerDiscoveryQuery,
  type DiscoveryLimits,
  lookupOwner,
  parseDiscoveryQuery,
  remotesMap,
} from '../../backend/gateway/oracle';
import type { MockEnvironment } from '../support/environment';
import { answer } from '../support/respond';

/** The gateway's default limits (`[tool.platform.gateway]` defaults). */
const LIMITS: DiscoveryLimits = { maxResources: 500, maxBodyBytes: 65_536 };

/** Handlers of `/api/gateway/*` on any origin. */
export function gatewayHandlers(env: MockEnvironment, limits: DiscoveryLimits = LIMITS): HttpHandler[] {
  return [
    http.post('*/api/gateway/discovery/query', ({ request }) =>
      answer(async () => {
        const query = parseDiscoveryQuery(await request.text(), limits);
        return HttpResponse.json(answerDiscoveryQuery(env.directory, query));
      }),
    ),
    http.get('*/api/gateway/remotes', () => HttpResponse.json(remotesMap(env.directory))),
    http.get('*/api/gateway/discovery/:resource', ({ params }) =>
      answer(() => HttpResponse.json(lookupOwner(env.directory, String(params.resource)))),
    ),
  ];
}
