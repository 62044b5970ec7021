import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fetchServiceMetadata } from '../../../src/sdk/data';
import type { RemotesMap } from '../../../src/sdk/discovery';
import { fetchWithCredentials } from '../../../src/sdk/http';
import { DeskCatalog } from '../../../src/shell/platform/catalog';
import { ORIGIN, startBackend, type TestBackend } from '../../sdk/helpers';

let backend: TestBackend;
beforeAll(async () => {
  // crm ships a UI remote (it is in the gateway's remotes map); stock is data-only.
  backend = await startBackend({ remotes: ['crm'] });
});
afterEach(() => {
  backend.server.resetHandlers();
  backend.requests.length = 0;
});
afterAll(() => backend.server.close());

/** The catalog as the Desk wires it: the SDK's own fetches, against the mock gateway. */
function createCatalog(): DeskCatalog {
  return new DeskCatalog({
    gatewayUrl: ORIGIN,
    fetchRemotes: (url) => fetchWithCredentials<RemotesMap>(url),
    fetchMetadata: (metaUrl) => fetchServiceMetadata(metaUrl),
  });
}

const manifest = (service: string) => backend.env.manifests.find((m) => m.service === service)!;

const metadataDown = (service: string) =>
  http.get(`${ORIGIN}/api/meta/${service}`, () =>
    HttpResponse.json({ error: { code: 'service_unavailable', message: 'Down.' } }, { status: 503 }),
  );

const settled = (catalog: DeskCatalog, ...services: string[]) =>
  vi.waitFor(() => {
    for (const service of services) {
      expect(catalog.getSnapshot().metadata[service]?.status).toMatch(/ready|error/);
    }
  });

describe('DeskCatalog', () => {
  it('keeps the other services ready when one service fails to send its metadata', async () => {
    backend.server.use(metadataDown('crm'));
    const catalog = createCatalog();

    await expect(catalog.addManifest(manifest('crm'))).rejects.toMatchObject({ status: 503 });
    await catalog.addManifest(manifest('stock'));

    const { metadata } = catalog.getSnapshot();
    expect(metadata.crm).toMatchObject({ status: 'error', error: { code: 'service_unavailable' } });
    expect(metadata.stock).toMatchObject({ status: 'ready', value: { service: 'stock' } });
    expect(catalog.findDocType('stock.Item')).toMatchObject({ service: 'stock', schema: { label: 'Item' } });
    expect(catalog.findDocType('crm.Customer')).toBeUndefined();
  });

  it('loadPendingMetadata reloads only the services that failed', async () => {
    backend.server.use(metadataDown('crm'));
    const catalog = createCatalog();
    await catalog.addManifest(manifest('crm')).catch(() => {});
    await catalog.addManifest(manifest('stock'));
    backend.server.resetHandlers();

    await catalog.loadPendingMetadata();

    expect(catalog.getSnapshot().metadata.crm).toMatchObject({ status: 'ready' });
    expect(catalog.findDocType('crm.Customer')?.service).toBe('crm');
    expect(backend.to('/api/meta/crm', 'GET')).toHaveLength(2);
    expect(backend.to('/api/meta/stock', 'GET')).toHaveLength(1);
  });

  it('loadPendingMetadata leaves a service that fails again in error, and the others untouched', async () => {
    backend.server.use(metadataDown('crm'));
    const catalog = createCatalog();
    await catalog.addManifest(manifest('crm')).catch(() => {});
    await catalog.addManifest(manifest('stock'));
    const stockState = catalog.getSnapshot().metadata.stock;

    await expect(catalog.loadPendingMetadata()).resolves.toBeUndefined();

    expect(catalog.getSnapshot().metadata.crm).toMatchObject({ status: 'error' });
    expect(catalog.getSnapshot().metadata.stock).toBe(stockState);
    expect(backend.to('/api/meta/crm', 'GET')).toHaveLength(2);
  });

  it('merges the remotes map with prewarmed manifests into one entry per service', async () => {
    const catalog = createCatalog();
    expect(catalog.getSnapshot().remotes).toEqual({ status: 'idle' });

    await catalog.loadRemotes();
    await catalog.addManifest(manifest('stock'));
    await catalog.addManifest(manifest('crm'));
    await settled(catalog, 'crm', 'stock');

    const { remotes, services, metadata } = catalog.getSnapshot();
    expect(remotes).toMatchObject({ status: 'ready', value: { crm: { url: manifest('crm').url } } });
    expect(Object.keys(services)).toEqual(['crm', 'stock']);
    expect(services.crm).toEqual({
      service: 'crm',
      url: `${ORIGIN}/desk/assets/crm/remoteEntry.js`,
      apiUrl: `${ORIGIN}/api`,
      metaUrl: `${ORIGIN}/api/meta/crm`,
    });
    expect(services.stock).toMatchObject({ service: 'stock', url: null });
    expect([metadata.crm?.status, metadata.stock?.status]).toEqual(['ready', 'ready']);
    // Known from both sources, crm's metadata is still fetched once.
    expect(backend.to('/api/meta/crm', 'GET')).toHaveLength(1);
    expect(backend.to('/api/gateway/remotes', 'GET')).toHaveLength(1);
  });

  it('does not lose a known remote URL to a later entry without one', async () => {
    const catalog = createCatalog();
    await catalog.loadRemotes();
    await catalog.addService({ ...manifest('crm'), url: null });

    expect(catalog.getSnapshot().services.crm?.url).toBe(`${ORIGIN}/desk/assets/crm/remoteEntry.js`);
  });

  it('records a failed remotes map, keeps manifests working, and retryRemotes adds its services', async () => {
    backend.server.use(
      http.get(`${ORIGIN}/api/gateway/remotes`, () =>
        HttpResponse.json({ error: { code: 'internal_error', message: 'Boom.' } }, { status: 500 }),
      ),
    );
    const catalog = createCatalog();
    await catalog.loadRemotes();
    await catalog.addManifest(manifest('stock'));

    expect(catalog.getSnapshot().remotes).toMatchObject({ status: 'error', error: { status: 500 } });
    expect(Object.keys(catalog.getSnapshot().services)).toEqual(['stock']);

    backend.server.resetHandlers();
    await catalog.retryRemotes();
    await settled(catalog, 'crm');

    expect(catalog.getSnapshot().remotes).toMatchObject({ status: 'ready' });
    expect(Object.keys(catalog.getSnapshot().services)).toEqual(['stock', 'crm']);
    expect(catalog.getSnapshot().metadata.crm).toMatchObject({ status: 'ready' });
  });

  it('keeps one snapshot object until something changes, and notifies subscribers of changes', async () => {
    const catalog = createCatalog();
    const listener = vi.fn();
    catalog.subscribe(listener);
    const before = catalog.getSnapshot();
    expect(catalog.getSnapshot()).toBe(before);

    await catalog.addManifest(manifest('stock'));

    expect(catalog.getSnapshot()).not.toBe(before);
    expect(listener).toHaveBeenCalled();
  });
});

describe('DeskCatalog.noteManifest', () => {
  it('fetches a service’s metadata again when its manifest’s rev grows, the old one shown meanwhile', async () => {
    const fetched: string[] = [];
    const catalog = new DeskCatalog({
      gatewayUrl: ORIGIN,
      fetchRemotes: (url) => fetchWithCredentials<RemotesMap>(url),
      fetchMetadata: (metaUrl) => {
        fetched.push(metaUrl);
        return fetchServiceMetadata(metaUrl);
      },
    });
    const stock = manifest('stock');
    await catalog.addManifest(stock);
    expect(fetched).toHaveLength(1);
    const states: string[] = [];
    catalog.subscribe(() => states.push(catalog.getSnapshot().metadata.stock?.status ?? 'none'));

    // The same rev, or an older one: nothing changed.
    catalog.noteManifest(stock);
    catalog.noteManifest({ ...stock, rev: stock.rev - 1 });
    expect(fetched).toHaveLength(1);

    catalog.noteManifest({ ...stock, rev: stock.rev + 1 });
    await vi.waitFor(() => expect(states).toContain('ready'));
    expect(fetched).toEqual([stock.metaUrl, stock.metaUrl]);
    expect(states).not.toContain('loading');
    expect(catalog.findDocType('stock.Item')).toMatchObject({ service: 'stock' });
  });
});
