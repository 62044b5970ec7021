import { afterEach, describe, expect, it } from 'vitest';
import { type KvEvent, SCHEMA_DISCOVERY_SUBJECT } from '../../../backend/bus/bus';
import { InProcessBus } from '../../../backend/bus/in-process-bus';
import { BusServiceDirectory } from '../../../backend/gateway/bus-directory';
import { type ManifestDraft, ManifestPublisher } from '../../../backend/gateway/manifests/manifest-publisher';
import { schemaBroadcast } from '../../../backend/gateway/manifests/schema-broadcast';
import type { ServiceManifest } from '../../../src/protocol';

const TTL = 3_000;
const HEARTBEAT = 1_000;

function draft(service: string, doctypes: string[] = [`${service}.Thing`]): ManifestDraft {
  return {
    service,
    url: `http://127.0.0.1:9100/desk/assets/${service}/remoteEntry.js`,
    apiUrl: 'http://127.0.0.1:9100/api',
    metaUrl: `http://127.0.0.1:9100/api/meta/${service}`,
    doctypes,
  };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A bus, a directory and publishers sharing one fake clock. */
async function setup(busSourceOfTruth = false) {
  let clock = 1_800_000_000_000;
  const now = () => clock;
  const bus = new InProcessBus({ now });
  const store = await bus.keyValue<ServiceManifest>('manifests', { ttlMs: TTL });
  const logs: string[] = [];
  const directory = new BusServiceDirectory({
    bus,
    store: store as never,
    ttlMs: TTL,
    heartbeatMs: HEARTBEAT,
    busSourceOfTruth,
    log: (l) => logs.push(l),
    now,
  });
  await directory.start();
  cleanups.push(
    () => directory.close(),
    () => bus.close(),
  );
  const publisher = () => {
    const p = new ManifestPublisher({ bus, store, heartbeatMs: 60_000, log: () => {}, now });
    cleanups.push(() => p.stop());
    return p;
  };
  return { bus, store, directory, publisher, logs, advance: (ms: number) => (clock += ms) };
}

describe('BusServiceDirectory', () => {
  it('keeps a live service when the bucket comes back empty and its heartbeats count revisions from 1 again', async () => {
    let clock = 1_800_000_000_000;
    const now = () => clock;
    const bus = new InProcessBus({ now });
    let emit!: (event: KvEvent<unknown>) => void;
    // The manifest bucket as the watch reports it, driven by hand: NATS losing its store is a new stream.
    const store = {
      async watch(listener: (event: KvEvent<unknown>) => void) {
        emit = listener;
        listener({ type: 'snapshot', entries: [] });
        return () => {};
      },
    };
    const directory = new BusServiceDirectory({
      bus,
      store: store as never,
      ttlMs: TTL,
      heartbeatMs: HEARTBEAT,
      busSourceOfTruth: false,
      log: () => {},
      now,
    });
    await directory.start();
    cleanups.push(
      () => directory.close(),
      () => bus.close(),
    );
    const manifest: ServiceManifest = { ...draft('crm'), rev: 1 };
    const put = (revision: number): KvEvent<unknown> => ({
      type: 'put',
      entry: { key: 'crm', value: manifest, revision, created: new Date(clock) },
    });
    emit(put(20));
    // The resync after the reconnect finds the new bucket empty: crm is still served.
    emit({ type: 'snapshot', entries: [] });
    expect(directory.get('crm')).toEqual(manifest);
    for (let revision = 1; revision <= 2 * (TTL / HEARTBEAT); revision++) {
      clock += HEARTBEAT;
      emit(put(revision));
      directory.sweep();
      expect(directory.get('crm'), `after heartbeat ${revision} of the new bucket`).toEqual(manifest);
    }
    // Once the heartbeats stop, crm expires after the TTL as ever.
    clock += TTL + 1;
    directory.sweep();
    expect(directory.get('crm')).toBeUndefined();
  });

  it('lists a published service and answers its DocTypes from memory', async () => {
    const { directory, publisher } = await setup();
    const changes: string[][] = [];
    directory.subscribe((list) => changes.push(list.map((m) => m.service)));
    const manifest = await publisher().start(draft('crm', ['crm.Customer', 'crm.Lead']));
    expect(directory.get('crm')).toEqual(manifest);
    expect(directory.ownerOf('crm.Lead')).toBe('crm');
    expect(directory.ownerOf('stock.Item')).toBeUndefined();
    expect(changes).toEqual([['crm']]);
  });

  it('drops a service at once when its key is deleted on clean shutdown', async () => {
    const { directory, publisher } = await setup();
    const p = publisher();
    await p.start(draft('crm'));
    await p.stop();
    expect(directory.list()).toEqual([]);
    expect(directory.ownerOf('crm.Thing')).toBeUndefined();
  });

  it('expires a service whose heartbeat stopped for longer than the TTL, and keeps one that beats', async () => {
    const { directory, store, publisher, advance, logs } = await setup();
    await publisher().start(draft('crm'));
    await publisher().start(draft('stock'));
    advance(TTL - 500);
    await store.put('stock', directory.get('stock')!); // stock's heartbeat
    directory.sweep();
    expect(directory.list().map((m) => m.service)).toEqual(['crm', 'stock']);
    advance(1_000);
    directory.sweep();
    expect(directory.list().map((m) => m.service)).toEqual(['stock']);
    expect(logs.some((l) => l.includes('crm expired'))).toBe(true);
  });

  it('keeps the rev of an unchanged manifest across restarts and gives a changed one a higher rev', async () => {
    const { directory, publisher, advance } = await setup();
    const first = await publisher().start(draft('crm'));
    advance(100);
    const restarted = await publisher().start(draft('crm'));
    expect(restarted.rev).toBe(first.rev);
    const changed = await publisher().start(draft('crm', ['crm.Thing', 'crm.Other']));
    expect(changed.rev).toBeGreaterThan(first.rev);
    expect(directory.get('crm')?.rev).toBe(changed.rev);
    expect(directory.ownerOf('crm.Other')).toBe('crm');
  });

  it('ignores invalid manifests on the bus', async () => {
    const { directory, store, logs } = await setup();
    await store.put('evil', { service: 'evil', rev: 1, url: 'javascript:alert(1)' } as never);
    await store.put('crm', { ...draft('stock'), rev: 1 }); // key and service disagree
    expect(directory.list()).toEqual([]);
    expect(logs.filter((l) => l.includes('ignored an invalid manifest'))).toHaveLength(2);
  });

  it('learns a broadcast-only service when the bus is the source of truth', async () => {
    const { directory, bus } = await setup(true);
    await bus.publish(SCHEMA_DISCOVERY_SUBJECT, schemaBroadcast({ ...draft('legacy'), rev: 4 }));
    expect(directory.get('legacy')).toMatchObject({ service: 'legacy', rev: 4, doctypes: ['legacy.Thing'] });
    expect(directory.ownerOf('legacy.Thing')).toBe('legacy');
  });

  it('ignores broadcasts when the bus is not the source of truth', async () => {
    const { directory, bus } = await setup(false);
    await bus.publish(SCHEMA_DISCOVERY_SUBJECT, schemaBroadcast({ ...draft('legacy'), rev: 4 }));
    expect(directory.list()).toEqual([]);
  });

  it('accepts a legacy broadcast whose DocTypes are schema objects, and ignores other event types', async () => {
    const { directory, bus } = await setup(true);
    await bus.publish(SCHEMA_DISCOVERY_SUBJECT, { type: 'schema.changed', service: 'x' });
    await bus.publish(SCHEMA_DISCOVERY_SUBJECT, {
      type: 'schema.broadcast',
      service: 'old',
      manifest: {
        url: 'http://old.test/remoteEntry.js',
        apiUrl: 'http://old.test/api',
        metaUrl: 'http://old.test/api/meta/old',
      },
      doctypes: [{ name: 'old.Order', fields: [] }],
      rev: 2,
      ts: 1,
    });
    expect(directory.list().map((m) => m.service)).toEqual(['old']);
    expect(directory.ownerOf('old.Order')).toBe('old');
  });
});
