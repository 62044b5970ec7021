/**
 * The paths a MACROSERVICE gateway's chain treats as forwarded (`isForwardedPath`: an `Idempotency-Key` on
 * them is kept by the service storing the write, docs/operators.md#trust-between-gateway-and-services) are
 * exactly those the forwarder routes to a service, so no forwarded write's key is kept by the one gateway
 * that happened to take it.
 */
import { describe, expect, it } from 'vitest';
import { forwardRoutes } from '../../../backend/gateway/forward';
import { isForwardedPath } from '../../../backend/gateway/forwarded-paths';

const directory = { get: () => undefined, ownerOf: () => undefined };

/** An example path under each route the forwarder registers (its `*` filled in with a DocType path). */
function forwardedExamples(): string[] {
  const app = forwardRoutes({ directory, secret: 'x'.repeat(40), timeoutMs: 500, log: () => {} });
  const patterns = [...new Set(app.routes.map((r) => r.path).filter((p) => p.endsWith('/*')))];
  expect(patterns.length).toBeGreaterThan(0);
  return patterns.map((p) =>
    p.replace('/*', p.startsWith('/api/method') ? '/crm.api.ping' : '/crm.Customer/CUST-00001'),
  );
}

describe('isForwardedPath', () => {
  it('holds for every route prefix the forwarder sends to a service, the CSV import included', () => {
    const examples = forwardedExamples();
    expect(examples).toContain('/api/import/crm.Customer/CUST-00001');
    for (const path of examples) expect(isForwardedPath(path), path).toBe(true);
    expect(isForwardedPath('/api/import/crm.Customer/preview')).toBe(true);
  });

  it('does not hold for the routes the gateway answers itself', () => {
    for (const path of [
      '/api/method/login',
      '/api/method/logout',
      '/api/method/platform.users.add',
      '/api/method/platform.auth.generate_api_key',
      '/api/search',
      '/api/audit',
      '/api/gateway/remotes',
    ]) {
      expect(isForwardedPath(path), path).toBe(false);
    }
  });
});
