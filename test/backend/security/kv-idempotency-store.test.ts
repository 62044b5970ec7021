import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../../backend/bus/in-process-bus';
import { NatsBus } from '../../../backend/bus/nats-bus';
import {
  type IdempotencyRecord,
  KvIdempotencyStore,
} from '../../../backend/security/idempotency/kv-idempotency-store';
import { type NatsServerHandle, startNatsServer } from '../../helpers/nats-server';

const RESPONSE = { status: 201, headers: { 'content-type': 'application/json' }, body: '{"data":{}}' };
const TTL = 60_000;

let nats: NatsServerHandle;
const buses: NatsBus[] = [];
let bucketSeq = 0;

beforeAll(async () => {
  nats = await startNatsServer();
  for (let i = 0; i < 2; i++) buses.push(await NatsBus.connect({ url: nats.url, log: () => {} }));
});

afterAll(async () => {
  for (const bus of buses) await bus.close();
  await nats?.dispose();
});

/** Two stores on one bucket, as two gateways would have (two NATS connections). */
async function twoGateways(): Promise<[KvIdempotencyStore, KvIdempotencyStore]> {
  const bucket = `idem_${++bucketSeq}`;
  const a = await buses[0]!.keyValue<IdempotencyRecord>(bucket, { ttlMs: TTL });
  const b = await buses[1]!.keyValue<IdempotencyRecord>(bucket, { ttlMs: TTL });
  return [new KvIdempotencyStore(a), new KvIdempotencyStore(b)];
}

describe('KvIdempotencyStore', () => {
  it('replays on the second gateway what the first one completed', async () => {
    const [a, b] = await twoGateways();
    expect(await a.begin('key/with:any chars', 'fp', TTL)).toEqual({ state: 'new' });
    expect(await b.begin('key/with:any chars', 'fp', TTL)).toEqual({ state: 'in_flight' });
    await a.complete('key/with:any chars', RESPONSE);
    expect(await b.begin('key/with:any chars', 'fp', TTL)).toEqual({ state: 'replay', response: RESPONSE });
  });

  it('reports a conflict for the same key with another payload', async () => {
    const [a, b] = await twoGateways();
    await a.begin('k', 'fp1', TTL);
    await a.complete('k', RESPONSE);
    expect(await b.begin('k', 'fp2', TTL)).toEqual({ state: 'conflict' });
  });

  it('gives exactly one of many concurrent begins across gateways the key', async () => {
    const [a, b] = await twoGateways();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).begin('race', 'fp', TTL)),
    );
    expect(results.filter((r) => r.state === 'new')).toHaveLength(1);
    expect(results.filter((r) => r.state === 'in_flight')).toHaveLength(19);
  });

  it('lets a retry run again after a release', async () => {
    const [a, b] = await twoGateways();
    await a.begin('k', 'fp', TTL);
    await a.release('k');
    expect(await b.begin('k', 'fp', TTL)).toEqual({ state: 'new' });
  });

  it('refuses with 503 idempotency_unavailable while the bucket cannot be reached', async () => {
    const down = new Error('connection closed');
    const failing = {
      create: () => Promise.reject(down),
      get: () => Promise.reject(down),
      update: () => Promise.reject(down),
      delete: () => Promise.reject(down),
    } as unknown as ConstructorParameters<typeof KvIdempotencyStore>[0];
    const store = new KvIdempotencyStore(failing);
    await expect(store.begin('k', 'fp', TTL)).rejects.toMatchObject({
      code: 'idempotency_unavailable',
      status: 503,
    });
    await expect(store.release('k')).rejects.toMatchObject({ code: 'idempotency_unavailable' });
  });

  it('treats a record past the TTL the caller asked for as absent', async () => {
    let clock = 1_000;
    const bus = new InProcessBus();
    const store = new KvIdempotencyStore(
      await bus.keyValue<IdempotencyRecord>('idem', { ttlMs: TTL }),
      () => clock,
    );
    await store.begin('k', 'fp', 100);
    await store.complete('k', RESPONSE);
    clock += 101;
    expect(await store.begin('k', 'other', 100)).toEqual({ state: 'new' });
  });
});
