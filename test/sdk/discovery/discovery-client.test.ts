import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { isSdkError } from '../../../src/sdk/errors';
import { manualScheduler, ORIGIN, startBackend, type TestBackend } from '../helpers';

const QUERY = '/api/gateway/discovery/query';
let backend: TestBackend;

beforeAll(async () => {
  // crm ships a UI remote, so discovery answers name its entry.
  backend = await startBackend({ remotes: ['crm'] });
});
afterEach(() => {
  DiscoveryClient.reset();
  backend.server.resetHandlers();
  backend.requests.length = 0;
  vi.useRealTimers();
});
afterAll(() => backend.server.close());

const client = (options = {}) => DiscoveryClient.get_instance({ gatewayUrl: ORIGIN, ...options });

async function queriesSent(): Promise<Array<{ resources: string[]; services?: Record<string, number> }>> {
  await backend.settle();
  return backend.to(QUERY, 'POST').map((r) => JSON.parse(r.body));
}

describe('DiscoveryClient', () => {
  it('batches 200 lookups issued in the same tick into exactly one request', async () => {
    const names = ['crm.Customer', 'stock.Item', ...Array.from({ length: 198 }, (_, i) => `crm.Missing${i}`)];
    const owners = await Promise.all(names.map((n) => client().resolve(n)));

    const queries = await queriesSent();
    expect(queries).toHaveLength(1);
    expect(queries[0]!.resources).toHaveLength(200);
    expect(owners[0]).toBe('crm');
    expect(owners[1]).toBe('stock');
    expect(owners.slice(2).every((o) => o === null)).toBe(true);
  });

  it('answers from the warm cache with no request, including DocTypes hydrated from a manifest', async () => {
    await client().resolve('stock.Item');
    expect(await queriesSent()).toHaveLength(1);

    expect(await client().resolve('stock.Item')).toBe('stock');
    // The answer carried the stock manifest, whose DocTypes hydrate the registry too.
    expect(await client().resolve('stock.Warehouse')).toBe('stock');
    expect(client().getManifest('stock')?.apiUrl).toBe(`${ORIGIN}/api`);
    expect(await queriesSent()).toHaveLength(1);
  });

  it('sends one request again after reset()', async () => {
    await client().resolve('crm.Customer');
    await client().resolve('crm.Customer');
    expect(await queriesSent()).toHaveLength(1);

    DiscoveryClient.reset();
    expect(client().getManifest('crm')).toBeUndefined();
    expect(await client().resolve('crm.Customer')).toBe('crm');
    expect(await queriesSent()).toHaveLength(2);
  });

  it('shares one in-flight request between callers of different ticks', async () => {
    const scheduler = manualScheduler();
    const discovery = client({ schedule: scheduler.schedule });
    const first = discovery.resolve('crm.Lead');
    scheduler.flush();
    const second = discovery.resolve('crm.Lead');
    scheduler.flush();

    expect(await Promise.all([first, second])).toEqual(['crm', 'crm']);
    expect(await queriesSent()).toHaveLength(1);
  });

  it('rejects only the callers of a failed batch with a coded error, leaves the cache clean, and retries', async () => {
    backend.server.use(
      http.post(
        `*${QUERY}`,
        () => HttpResponse.json({ error: { code: 'unavailable', message: 'down' } }, { status: 503 }),
        {
          once: true,
        },
      ),
    );
    const scheduler = manualScheduler();
    const discovery = client({ schedule: scheduler.schedule });
    const failing = discovery.resolve('crm.Customer');
    scheduler.flush();
    const other = discovery.resolve('stock.Item');
    scheduler.flush();

    const error = await failing.catch((e: unknown) => e);
    expect(isSdkError(error) && error.code).toBe('discovery_failed');
    expect(isSdkError(error) && error.status).toBe(503);
    expect(await other).toBe('stock');
    expect(discovery.getSnapshot().owners['crm.Customer']).toBeUndefined();

    const retry = discovery.resolve('crm.Customer');
    scheduler.flush();
    expect(await retry).toBe('crm');
    expect(await queriesSent()).toHaveLength(3);
  });

  it('times out a batch with discovery_timeout (fake timers)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const hanging = vi.fn(
      (_url: RequestInfo | URL, init?: RequestInit) =>
        new Promise<Response>((_, reject) => {
          init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        }),
    );
    const discovery = client({ fetch: hanging, timeoutMs: 2_000 });
    const pending = discovery.resolve('crm.Customer').catch((e: unknown) => e);
    await Promise.resolve(); // let the microtask flush send the batch
    await vi.advanceTimersByTimeAsync(2_000);

    const error = await pending;
    expect(hanging).toHaveBeenCalledTimes(1);
    expect(isSdkError(error) && error.code).toBe('discovery_timeout');
    expect(discovery.registry.size).toBe(0);
  });

  it('sends the manifest revision it holds per service, and 0 for a service it never saw', async () => {
    let now = 1_000;
    const discovery = client({ now: () => now, maxAgeMs: 60_000 });
    await discovery.resolve('crm.Customer');
    const rev = discovery.getManifest('crm')!.rev;

    now += 60_001; // the cached owner expired
    await discovery.resolve('crm.Customer');
    await discovery.prewarm(['stock']);

    const [, second, third] = await queriesSent();
    expect(second).toEqual({ resources: ['crm.Customer'], services: { crm: rev } });
    expect(third).toEqual({ resources: [], services: { crm: rev, stock: 0 } });
  });

  it('revalidate() asks once, with the held revs, even for fresh manifests, and takes a newer one', async () => {
    const discovery = client();
    await discovery.prewarm(['crm', 'stock']);
    const crm = discovery.getManifest('crm')!;
    const stock = discovery.getManifest('stock')!;
    backend.server.use(
      http.post(`${ORIGIN}${QUERY}`, () =>
        HttpResponse.json({ resources: {}, services: { crm: { ...crm, rev: crm.rev + 1 } } }),
      ),
    );
    const notified = vi.fn();
    discovery.subscribe(notified);

    await discovery.revalidate();

    const [, query] = await queriesSent();
    expect(query).toEqual({ resources: [], services: { crm: crm.rev, stock: stock.rev }, remotes: true });
    expect(discovery.getManifest('crm')!.rev).toBe(crm.rev + 1);
    expect(discovery.getManifest('stock')).toEqual(stock);
    expect(notified).toHaveBeenCalled();
  });

  it('revalidate() resolves with the remote entries the offline backend answers, in the same one query', async () => {
    const discovery = client();
    await discovery.prewarm(['crm']);

    const entries = await discovery.revalidate();

    const queries = await queriesSent();
    expect(queries).toHaveLength(2);
    expect(queries[1]).toEqual({
      resources: [],
      services: { crm: discovery.getManifest('crm')!.rev },
      remotes: true,
    });
    // The backend's own routes answer: the entry of each service with a UI remote, as the remotes map names it.
    const map = (await (await fetch(`${ORIGIN}/api/gateway/remotes`)).json()) as Record<
      string,
      { url: string }
    >;
    expect(Object.keys(map)).toEqual(['crm']);
    expect(entries).toEqual(Object.fromEntries(Object.entries(map).map(([name, unit]) => [name, unit.url])));
  });

  it('revalidate() asks even when it holds no manifest, and a second call joins the one in flight', async () => {
    const discovery = client();
    const [first, second] = await Promise.all([discovery.revalidate(), discovery.revalidate()]);

    expect(first).toBeDefined();
    expect(second).toBe(first);
    expect(await queriesSent()).toEqual([{ resources: [], remotes: true }]);
    // Settled: the next navigation asks again.
    await discovery.revalidate();
    expect(await queriesSent()).toHaveLength(2);
  });

  it('revalidate() resolves with undefined for an answer without entries (an older gateway) or a failed query', async () => {
    const discovery = client();
    backend.server.use(
      http.post(`*${QUERY}`, () => HttpResponse.json({ resources: {}, services: {} }), { once: true }),
    );
    expect(await discovery.revalidate()).toBeUndefined();
    backend.server.use(http.post(`*${QUERY}`, () => HttpResponse.error(), { once: true }));
    expect(await discovery.revalidate()).toBeUndefined();
    expect(await queriesSent()).toHaveLength(2);
  });

  it('prewarms services in one query with all-settled semantics when one service fails', async () => {
    const warmed: string[] = [];
    const report = await client().prewarm(['crm', 'nosuch', 'stock'], {
      warmers: [
        (service) => {
          if (service === 'stock') throw new Error('remote down');
          warmed.push(service);
        },
      ],
    });

    expect(report.map((r) => [r.service, r.status])).toEqual([
      ['crm', 'fulfilled'],
      ['nosuch', 'rejected'],
      ['stock', 'rejected'],
    ]);
    const nosuch = report[1]!;
    expect(nosuch.status === 'rejected' && isSdkError(nosuch.error) && nosuch.error.code).toBe(
      'unknown_service',
    );
    expect(warmed).toEqual(['crm']);
    const queries = await queriesSent();
    expect(queries).toEqual([{ resources: [], services: { crm: 0, nosuch: 0, stock: 0 } }]);
    // Prewarmed manifests serve later lookups without a request.
    expect(await client().resolve('crm.Lead')).toBe('crm');
    expect(await queriesSent()).toHaveLength(1);
  });

  it('publishes immutable snapshots for subscribers and runs its lifecycle hooks', async () => {
    const discovery = client();
    const listener = vi.fn();
    discovery.subscribe(listener);
    const events: string[] = [];
    discovery.hooks.on('beforeQuery', ({ query }) => events.push(`before:${query.resources.join(',')}`));
    discovery.hooks.on('afterQuery', ({ result }) => events.push(`after:${result.resources['crm.Lead']}`));
    const before = discovery.getSnapshot();
    expect(discovery.getSnapshot()).toBe(before);

    await discovery.resolve('crm.Lead');

    const after = discovery.getSnapshot();
    expect(after).not.toBe(before);
    expect(after.owners['crm.Lead']).toBe('crm');
    expect(after.manifests.crm?.service).toBe('crm');
    expect(after.pending).toBe(0);
    expect(Object.isFrozen(after.owners)).toBe(true);
    expect(listener).toHaveBeenCalled();
    expect(events).toEqual(['before:crm.Lead', 'after:crm']);
  });

  it('notifies subscribers per batch, not per lookup', async () => {
    const discovery = client();
    const listener = vi.fn();
    discovery.subscribe(listener);
    await Promise.all(Array.from({ length: 200 }, (_, i) => discovery.resolve(`stock.Missing${i}`)));
    expect(listener.mock.calls.length).toBeGreaterThan(0);
    expect(listener.mock.calls.length).toBeLessThan(10);
  });

  it('emits queryError for a failed batch', async () => {
    backend.server.use(http.post(`*${QUERY}`, () => HttpResponse.error(), { once: true }));
    const errors: string[] = [];
    client().hooks.on('queryError', ({ error }) => errors.push(error.code));
    await expect(client().resolve('crm.Lead')).rejects.toMatchObject({ code: 'discovery_failed' });
    expect(errors).toEqual(['discovery_failed']);
  });

  it('resolves malformed DocType names to null without a request', async () => {
    expect(await client().resolveMany(['Customer', 'crm.customer', '../x'])).toEqual({
      Customer: null,
      'crm.customer': null,
      '../x': null,
    });
    expect(await queriesSent()).toHaveLength(0);
  });

  it('takes the gateway URL from __PLATFORM_CONFIG__ when none is configured', async () => {
    const page = globalThis as { __PLATFORM_CONFIG__?: unknown };
    page.__PLATFORM_CONFIG__ = {
      mode: 'monolith',
      gatewayUrl: ORIGIN,
      deskBase: '/desk/',
      coreServices: [],
      securityConfigUrl: '/api/v1/security/config',
      version: '0',
    };
    try {
      expect(await DiscoveryClient.get_instance().resolve('crm.Lead')).toBe('crm');
      expect(await queriesSent()).toHaveLength(1);
    } finally {
      delete page.__PLATFORM_CONFIG__;
    }
  });

  it('is one shared instance under both spellings until reset', () => {
    const a = DiscoveryClient.get_instance();
    expect(DiscoveryClient.getInstance()).toBe(a);
    DiscoveryClient.reset();
    expect(DiscoveryClient.getInstance()).not.toBe(a);
  });
});
