import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { csrfTokenStore } from '../../../src/sdk/http';
import type { PlatformConfig } from '../../../src/sdk/platform-config';
import { createPlatform, type DeskPlatform } from '../../../src/shell/platform/create-platform';
import { prewarmCore } from '../../../src/shell/platform/prewarm-core';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';

const CONFIG: PlatformConfig = {
  mode: 'monolith',
  gatewayUrl: ORIGIN,
  deskBase: '/desk/',
  coreServices: ['crm', 'stock'],
  securityConfigUrl: `${ORIGIN}/api/v1/security/config`,
  version: 'test',
};

let backend: TestBackend;
beforeAll(async () => {
  backend = await startBackend();
});
/** Platforms made by a test; each stops following the other tabs' session events when its test ends. */
const made: DeskPlatform[] = [];
function newPlatform(): DeskPlatform {
  const platform = createPlatform(CONFIG);
  made.push(platform);
  return platform;
}
afterEach(() => {
  for (const platform of made.splice(0)) platform.dispose();
  backend.server.resetHandlers();
  backend.requests.length = 0;
  DiscoveryClient.reset();
  csrfTokenStore.clear();
});
afterAll(() => backend.server.close());

const failure = (status: number, code: string) =>
  HttpResponse.json({ error: { code, message: 'No.' } }, { status });

/**
 * Holds every metadata request until `expected` of them are in flight at once (or a generous deadline
 * passes, so a sequential prewarm fails the assertion instead of hanging), then lets each through or
 * answers `fail(service)`.
 */
function metadataBarrier(expected: number, fail: (service: string) => Response | undefined) {
  let inFlight = 0;
  let maxInFlight = 0;
  let release!: () => void;
  const together = new Promise<void>((resolve) => {
    release = resolve;
  });
  const handler = http.get(`${ORIGIN}/api/meta/:app`, async ({ params }) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    if (inFlight >= expected) release();
    await Promise.race([together, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    inFlight--;
    // undefined falls through to the mock's own metadata handler.
    return fail(String(params.app));
  });
  return { handler, maxInFlight: () => maxInFlight };
}

describe('prewarmCore', () => {
  it('warms the core services in parallel and reports a failing one while the others become ready', async () => {
    const barrier = metadataBarrier(2, (service) =>
      service === 'crm' ? failure(503, 'service_unavailable') : undefined,
    );
    backend.server.use(barrier.handler);
    const platform = newPlatform();
    platform.session.signedIn('Administrator');

    const report = await prewarmCore(platform);

    // Every service's metadata is asked at once (the listing of all services may add a third).
    expect(barrier.maxInFlight()).toBeGreaterThanOrEqual(2);
    expect(report.services.map((s) => [s.service, s.status])).toEqual([
      ['crm', 'rejected'],
      ['stock', 'fulfilled'],
    ]);
    expect(report.services[0]).toMatchObject({ error: { status: 503, code: 'service_unavailable' } });
    expect(report.security.status).toBe('fulfilled');
    const { metadata } = platform.catalog.getSnapshot();
    expect(metadata.crm).toMatchObject({ status: 'error' });
    expect(metadata.stock).toMatchObject({ status: 'ready' });
    // One discovery query brought both manifests; the policy and the remotes map were asked alongside.
    expect(backend.to('/api/gateway/discovery/query', 'POST')).toHaveLength(1);
    expect(backend.to('/api/v1/security/config', 'GET')).toHaveLength(1);
    expect(backend.to('/api/gateway/remotes', 'GET')).toHaveLength(1);
  });

  it('reports every service when discovery itself is down, and still loads the security policy', async () => {
    backend.server.use(http.post(`${ORIGIN}/api/gateway/discovery/query`, () => failure(502, 'bad_gateway')));
    const platform = newPlatform();

    const report = await prewarmCore(platform);

    expect(report.services.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    expect(report.security.status).toBe('fulfilled');
  });

  it('asks for no metadata while signed out, and loads every service after login', async () => {
    let signedIn = false;
    backend.server.use(
      http.get(`${ORIGIN}/api/meta/:app`, () => (signedIn ? undefined : failure(401, 'unauthorized'))),
      http.get(`${ORIGIN}/api/method/whoami`, () => (signedIn ? undefined : failure(401, 'unauthorized'))),
      http.post(`${ORIGIN}/api/method/login`, () => {
        signedIn = true;
        return undefined;
      }),
    );
    const platform: DeskPlatform = newPlatform();
    expect(platform.session.getSnapshot()).toEqual({ status: 'checking' });
    await platform.checkSession();
    expect(platform.session.getSnapshot()).toEqual({ status: 'signed-out' });

    const report = await prewarmCore(platform);
    expect(report.services.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled']);
    // The services are known (sidebar entries wait for their metadata), but nothing was asked without a session.
    expect(Object.keys(platform.catalog.getSnapshot().services).sort()).toEqual(['crm', 'stock', 'support']);
    expect(platform.catalog.getSnapshot().metadata.crm).toBeUndefined();
    expect(backend.to('/api/meta/crm', 'GET')).toHaveLength(0);
    expect(platform.session.getSnapshot()).toEqual({ status: 'signed-out' });

    await platform.login('Administrator', 'admin');

    // Roles and permissions come with the one whoami asked after the login (and one asked at boot).
    expect(platform.session.getSnapshot()).toMatchObject({
      status: 'signed-in',
      user: 'Administrator',
      roles: expect.arrayContaining(['System Manager']),
    });
    expect(backend.to('/api/method/whoami', 'GET')).toHaveLength(2);
    await vi.waitFor(() => {
      const { metadata } = platform.catalog.getSnapshot();
      expect([metadata.crm?.status, metadata.stock?.status]).toEqual(['ready', 'ready']);
    });
    expect(backend.to('/api/meta/crm', 'GET')).toHaveLength(1);
    // End the session, so its cookie does not follow the next test's requests.
    await platform.logout();
  });

  it('signs a signed-in Desk out as expired when its metadata answers 401', async () => {
    csrfTokenStore.set('token-from-an-earlier-login');
    backend.server.use(http.get(`${ORIGIN}/api/meta/:app`, () => failure(401, 'unauthorized')));
    const platform = newPlatform();
    await platform.checkSession();
    expect(platform.session.getSnapshot().status).toBe('signed-in');

    await prewarmCore(platform);

    expect(platform.session.getSnapshot()).toEqual({ status: 'signed-out', reason: 'expired' });
  });
});
