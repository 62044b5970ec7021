import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bus, KvEvent } from '../../../backend/bus/bus';
import { InProcessBus } from '../../../backend/bus/in-process-bus';
import { NatsBus } from '../../../backend/bus/nats-bus';
import { type NatsServerHandle, startNatsServer, waitUntil } from '../../helpers/nats-server';

let nats: NatsServerHandle;
let natsBus: NatsBus;
let bucketSeq = 0;

beforeAll(async () => {
  nats = await startNatsServer();
  natsBus = await NatsBus.connect({ url: nats.url, log: () => {} });
});

afterAll(async () => {
  await natsBus?.close();
  await nats?.dispose();
});

const implementations: Array<[string, () => Bus]> = [
  ['InProcessBus', () => new InProcessBus()],
  ['NatsBus', () => natsBus],
];

describe.each(implementations)('%s', (_name, busOf) => {
  const bucket = () => `contract_${++bucketSeq}`;

  it('delivers a published JSON payload to subscribers of matching subjects only', async () => {
    const bus = busOf();
    const seen: Array<[string, unknown]> = [];
    const offExact = bus.subscribe('infra.schema.discovery', (data, subject) => seen.push([subject, data]));
    const offWild = bus.subscribe('infra.*.discovery', (data, subject) => seen.push([`*${subject}`, data]));
    const offOther = bus.subscribe('infra.other', (data) => seen.push(['other', data]));
    await bus.publish('infra.schema.discovery', { type: 'schema.broadcast', n: 1 });
    await waitUntil(() => seen.length >= 2);
    offExact();
    offWild();
    offOther();
    expect(seen).toEqual(
      expect.arrayContaining([
        ['infra.schema.discovery', { type: 'schema.broadcast', n: 1 }],
        ['*infra.schema.discovery', { type: 'schema.broadcast', n: 1 }],
      ]),
    );
    expect(seen).toHaveLength(2);
  });

  it('stores, reads and deletes JSON values with growing revisions', async () => {
    const kv = await busOf().keyValue<{ n: number }>(bucket(), { ttlMs: 60_000 });
    const r1 = await kv.put('crm', { n: 1 });
    const r2 = await kv.put('crm', { n: 2 });
    expect(r2).toBeGreaterThan(r1);
    expect((await kv.get('crm'))?.value).toEqual({ n: 2 });
    await kv.delete('crm');
    expect(await kv.get('crm')).toBeNull();
    expect(await kv.entries()).toEqual([]);
  });

  it('keeps keys of a bucket with TTL 0 (no expiry, as NATS reads it)', async () => {
    const kv = await busOf().keyValue<number>(bucket(), { ttlMs: 0 });
    await kv.put('forever', 1);
    expect((await kv.get('forever'))?.value).toBe(1);
    expect((await kv.entries()).map((e) => e.key)).toEqual(['forever']);
  });

  it('lets exactly one of two racing creates win and refuses an update at a stale revision', async () => {
    const kv = await busOf().keyValue<string>(bucket(), { ttlMs: 60_000 });
    const results = await Promise.allSettled([kv.create('k', 'a'), kv.create('k', 'b')]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason.code).toBe('kv_key_exists');
    const current = (await kv.get('k'))!;
    const next = await kv.update('k', 'c', current.revision);
    await expect(kv.update('k', 'd', current.revision)).rejects.toMatchObject({
      code: 'kv_revision_mismatch',
    });
    expect(await kv.get('k')).toMatchObject({ value: 'c', revision: next });
  });

  it('allows create again after a delete', async () => {
    const kv = await busOf().keyValue<string>(bucket(), { ttlMs: 60_000 });
    await kv.create('k', 'a');
    await kv.delete('k');
    await kv.create('k', 'b');
    expect((await kv.get('k'))?.value).toBe('b');
  });

  it('reports a snapshot, then puts and deletes, to a watcher', async () => {
    const kv = await busOf().keyValue<number>(bucket(), { ttlMs: 60_000 });
    await kv.put('a', 1);
    const events: KvEvent<number>[] = [];
    const stop = await kv.watch((e) => events.push(e));
    expect(events[0]).toMatchObject({ type: 'snapshot', entries: [{ key: 'a', value: 1 }] });
    await kv.put('b', 2);
    await kv.delete('a');
    await waitUntil(() => events.length >= 3);
    stop();
    expect(events.slice(1)).toMatchObject([
      { type: 'put', entry: { key: 'b', value: 2 } },
      { type: 'delete', key: 'a' },
    ]);
  });
});

describe('NatsBus', () => {
  it('expires keys after the bucket TTL', async () => {
    const kv = await natsBus.keyValue<number>('contract_ttl', { ttlMs: 1_000 });
    await kv.put('a', 1);
    expect((await kv.get('a'))?.value).toBe(1);
    await waitUntil(async () => (await kv.get('a')) === null, 10_000);
    expect(await kv.entries()).toEqual([]);
  });

  it('keeps the watch alive across a server restart and resyncs with a snapshot', async () => {
    const logs: string[] = [];
    const bus = await NatsBus.connect({ url: nats.url, log: (l) => logs.push(l) });
    try {
      const kv = await bus.keyValue<number>('contract_restart', { ttlMs: 60_000 });
      await kv.put('before', 1);
      const events: KvEvent<number>[] = [];
      await kv.watch((e) => events.push(e));
      await nats.stop();
      await waitUntil(() => bus.status() === 'disconnected');
      await nats.restart();
      await waitUntil(() => bus.status() === 'connected', 20_000);
      await waitUntil(() => events.filter((e) => e.type === 'snapshot').length >= 2, 20_000);
      await kv.put('after', 2);
      await waitUntil(() => events.some((e) => e.type === 'put' && e.entry.key === 'after'), 20_000);
      const resync = events.filter((e) => e.type === 'snapshot').at(-1);
      expect(resync).toMatchObject({ entries: [{ key: 'before', value: 1 }] });
      expect(logs.some((l) => l.includes('connection lost'))).toBe(true);
    } finally {
      await bus.close();
    }
  });

  it('retries an unavailable server with a log line per attempt, then gives up when told to', async () => {
    const logs: string[] = [];
    await expect(
      NatsBus.connect({
        url: 'nats://127.0.0.1:1',
        log: (l) => logs.push(l),
        initialDelayMs: 10,
        maxAttempts: 3,
      }),
    ).rejects.toMatchObject({ code: 'bus_unavailable' });
    expect(logs.filter((l) => l.includes('unavailable') && l.includes('retrying'))).toHaveLength(2);
  });
});
