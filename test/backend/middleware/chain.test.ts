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
      ['RateLimitMiddleware', 10],
      ['PayloadDecryptionMiddleware', 15],
      ['CSRFMiddleware', 20],
      ['IdempotencyMiddleware', 30],
      ['AuthMiddleware', 50],
    ]);
  });

  it('builds named middleware in priority order', () => {
    expect(middlewareChain(t.ctx).map((m) => m.name)).toEqual([
      'rateLimit',
      'payloadDecryption',
      'csrf',
      'idempotency',
      'auth',
    ]);
  });
});

describe('MemoryIdempotencyStore', () => {
  it('gives "new" to exactly one of 100 concurrent begins with one key', async () => {
    const store = new MemoryIdempotencyStore();
    const results = await Promise.all(Array.from({ length: 100 }, () => store.begin('k', 'fp', 60_000)));
    expect(results.filter((r) => r.state === 'new')).toHaveLength(1);
    expect(results.filter((r) => r.state === 'in_flight')).toHaveLength(99);
    await store.complete('k', { status: 201, headers: {}, body: '{}' });
    expect(await store.begin('k', 'fp', 60_000)).toEqual({
      state: 'replay',
      response: { status: 201, headers: {}, body: '{}' },
    });
    expect(await store.begin('k', 'other', 60_000)).toEqual({ state: 'conflict' });
    await store.release('k');
    expect(await store.begin('k', 'other', 60_000)).toEqual({ state: 'new' });
  });
});
