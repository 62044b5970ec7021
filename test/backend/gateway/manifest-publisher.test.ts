import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Bus, BusStatus, KeyValueStore } from '../../../backend/bus/bus';
import { InProcessBus } from '../../../backend/bus/in-process-bus';
import { ManifestPublisher } from '../../../backend/gateway/manifests/manifest-publisher';
import type { ServiceManifest } from '../../../src/protocol';

const HEARTBEAT_MS = 1_000;

/**
 * An in-process bus whose connection state the test sets, and a manifest bucket that refuses every write
 * while the bus is down, at the put's timeout (as a NATS bucket does while the server is away).
 */
async function outageBus() {
  const inner = new InProcessBus();
  const listeners = new Set<(status: BusStatus) => void>();
  let status: BusStatus = 'connected';
  const bus: Bus = {
    kind: 'in-process',
    publish: (subject, data) => inner.publish(subject, data),
    subscribe: (subject, handler) => inner.subscribe(subject, handler),
    keyValue: (name, options) => inner.keyValue(name, options),
    status: () => status,
    onStatus(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => inner.close(),
  };
  const bucket = await inner.keyValue<ServiceManifest>('manifests', { ttlMs: 60_000 });
  let puts = 0;
  const store: KeyValueStore<ServiceManifest> = {
    bucket: bucket.bucket,
    ttlMs: bucket.ttlMs,
    get: (key) => bucket.get(key),
    put(key, value) {
      // As a NATS put sent while the server is away: it fails only at its timeout, five beats later.
      if (status !== 'connected') {
        return new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 5 * HEARTBEAT_MS));
      }
      puts++;
      return bucket.put(key, value);
    },
    create: (key, value) => bucket.create(key, value),
    update: (key, value, revision) => bucket.update(key, value, revision),
    delete: (key) => bucket.delete(key),
    entries: () => bucket.entries(),
    watch: (listener) => bucket.watch(listener),
  };
  const setStatus = (next: BusStatus) => {
    status = next;
    for (const l of listeners) l(next);
  };
  return { bus, bucket, store, setStatus, puts: () => puts, close: () => inner.close() };
}

const draft = {
  service: 'crm',
  url: 'http://127.0.0.1:9100/desk/assets/crm/remoteEntry.js',
  apiUrl: 'http://127.0.0.1:9100/api',
  metaUrl: 'http://127.0.0.1:9100/api/meta/crm',
  doctypes: ['crm.Lead'],
};

afterEach(() => {
  vi.useRealTimers();
});

describe('ManifestPublisher across a bus outage', () => {
  it('re-puts its manifest on the reconnect itself, before any heartbeat is due', async () => {
    const env = await outageBus();
    // A heartbeat far beyond the test: whatever puts the manifest back is the reconnect.
    const publisher = new ManifestPublisher({
      bus: env.bus,
      store: env.store,
      heartbeatMs: 3_600_000,
      log: () => {},
      broadcast: false,
    });
    await publisher.start(draft);
    env.setStatus('disconnected');
    await env.bucket.delete('crm'); // the server came back without its store
    const before = env.puts();
    env.setStatus('connected');
    await vi.waitFor(async () => expect((await env.bucket.get('crm'))?.value.service).toBe('crm'));
    expect(env.puts()).toBe(before + 1);
    await publisher.stop();
    await env.close();
  });

  it('logs a failing heartbeat once per outage and its recovery once, however many beats failed or failed late', async () => {
    vi.useFakeTimers();
    const env = await outageBus();
    const logs: string[] = [];
    const publisher = new ManifestPublisher({
      bus: env.bus,
      store: env.store,
      heartbeatMs: HEARTBEAT_MS,
      log: (l) => logs.push(l),
      broadcast: false,
    });
    await publisher.start(draft);
    for (let outage = 1; outage <= 2; outage++) {
      env.setStatus('disconnected');
      await vi.advanceTimersByTimeAsync(10 * HEARTBEAT_MS);
      env.setStatus('connected');
      // The puts sent during the outage time out now, after newer ones succeeded.
      await vi.advanceTimersByTimeAsync(10 * HEARTBEAT_MS);
      expect(logs.filter((l) => l.includes('heartbeat of crm failed'))).toHaveLength(outage);
      expect(logs.filter((l) => l.includes('heartbeat of crm resumed'))).toHaveLength(outage);
    }
    expect(logs).toHaveLength(4);
    await publisher.stop();
    await env.close();
  });
});
