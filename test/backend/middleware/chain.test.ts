import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIDDLEWARE, middlewareChain } from '../../../backend/middleware/chain';
import { MemoryIdempotencyStore } from '../../../backend/security/idempotency/memory-idempotency-store';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('middlewareChain', () => {
  it('declares the priorities of docs/security.md#middleware-chain once', () => {
    expect(MIDDLEWARE.map((m) => [m.name, m.priority])).toEqual([
      ['HostCheckMiddleware', 5],
      ['RequestTargetMiddleware', 6],
      ['RateLimitMiddleware', 10],
      ['BodyLimitMiddleware', 12],
      ['PayloadDecryptionMiddleware', 15],
      ['CSRFMiddleware', 20],
      ['IdempotencyMiddleware', 30],
      ['AuthMiddleware', 50],
    ]);
  });

  it('builds named middleware in priority order', () => {
    expect(middlewareChain(t.ctx).map((m) => m.name)).toEqual([
      'hostCheck',
      'requestTarget',
      'rateLimit',
      'bodyLimit',
      'payloadDecryption',
      'csrf',
      'idempotency',
      'auth',
    ]);
  });
});

describe('MemoryIdempotencyStore', () => {
  it('gives "new" to exactly one of 100 concurrent begins with one key; only its owner completes or releases it, and a release keeps a stored answer', async () => {
    const store = new MemoryIdempotencyStore();
    const results = await Promise.all(Array.from({ length: 100 }, () => store.begin('k', 'fp', 60_000)));
    const owners = results.flatMap((r) => (r.state === 'new' ? [r.owner] : []));
    expect(owners).toHaveLength(1);
    expect(results.filter((r) => r.state === 'in_flight')).toHaveLength(99);
    const response = { status: 201, headers: {}, body: '{}' };
    expect(await store.complete('k', 'someone else', response)).toBe(false);
    expect(await store.complete('k', owners[0]!, response)).toBe(true);
    expect(await store.begin('k', 'fp', 60_000)).toEqual({ state: 'replay', response });
    expect(await store.begin('k', 'other', 60_000)).toEqual({ state: 'conflict' });
    // A stored answer outlives a release (its write committed); a key still in flight is freed by its owner.
    await store.release('k', owners[0]!);
    expect(await store.begin('k', 'fp', 60_000)).toEqual({ state: 'replay', response });
    const running = await store.begin('k2', 'fp', 60_000);
    await store.release('k2', 'someone else');
    expect((await store.begin('k2', 'fp', 60_000)).state).toBe('in_flight');
    if (running.state === 'new') await store.release('k2', running.owner);
    expect((await store.begin('k2', 'fp', 60_000)).state).toBe('new');
  });
});
