import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { isValidIdempotencyKey } from '../../../backend/middleware/idempotency';
import type { DbIdempotencyStore } from '../../../backend/security/idempotency/db-idempotency-store';
import { apiKeyAuthorization, createUser } from '../../helpers/auth';
import { createTestApp, type TestApp } from '../../helpers/test-app';
import { errorOf, recordCount, sdkJwe, sendJose } from '../security/jwe-support';

// Metadata mode: crm.Customer bodies are encrypted, crm.Lead bodies are plaintext.
const CUSTOMERS = '/api/resource/crm.Customer';
const LEADS = '/api/resource/crm.Lead';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ config: { 'security.payload_encryption.mode': 'metadata' } });
});
afterAll(async () => {
  await t?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

let counter = 0;
const freshKey = () => `key-${Date.now()}-${++counter}`;
const storedKeys = async () =>
  Number(
    (await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM platform_idempotency')).rows[0]!.n,
  );
const createLead = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  t.request('POST', LEADS, { body, headers: { 'idempotency-key': key, ...headers } });

describe('IdempotencyMiddleware', () => {
  it('replays a completed request: same status and body, handler ran once, replay marker', async () => {
    const key = freshKey();
    const before = await recordCount(t.ctx, 'crm.Lead');
    const first = await createLead(key, { lead_name: 'Once' });
    const second = await createLead(key, { lead_name: 'Once' });
    expect(second.status).toBe(first.status);
    expect(await second.text()).toBe(await first.text());
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await recordCount(t.ctx, 'crm.Lead')).toBe(before + 1);
  });

  it('treats the same plaintext re-encrypted (new JWE bytes) as a replay (rule 8)', async () => {
    const key = freshKey();
    const before = await recordCount(t.ctx, 'crm.Customer');
    const send = async () =>
      sendJose(t, 'POST', CUSTOMERS, await sdkJwe(t.ctx, 'POST', CUSTOMERS, { customer_name: 'Re' }), {
        'idempotency-key': key,
      });
    const first = await send();
    const second = await send();
    expect(first.status).toBeLessThan(300);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.text()).toBe(await first.text());
    expect(await recordCount(t.ctx, 'crm.Customer')).toBe(before + 1);
  });

  it('answers 422 for the same key with a different payload and leaves the original untouched', async () => {
    const key = freshKey();
    const first = await createLead(key, { lead_name: 'Original' });
    const firstBody = await first.text();
    const before = await recordCount(t.ctx, 'crm.Lead');
    const other = await createLead(key, { lead_name: 'Different' });
    expect(other.status).toBe(422);
    expect((await errorOf(other)).code).toBe('idempotency_key_reused');
    expect(await recordCount(t.ctx, 'crm.Lead')).toBe(before);
    const again = await createLead(key, { lead_name: 'Original' });
    expect(await again.text()).toBe(firstBody);
  });

  it('answers 409 to a second request while the first with the same key is in flight', async () => {
    const key = freshKey();
    const store = t.ctx.security.idempotency;
    const complete = store.complete.bind(store);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => {
      entered = resolve;
    });
    vi.spyOn(store, 'complete').mockImplementation(async (k, response) => {
      entered();
      await gate;
      return complete(k, response);
    });
    const before = await recordCount(t.ctx, 'crm.Lead');
    const first = createLead(key, { lead_name: 'Slow' });
    await inHandler;
    const second = await createLead(key, { lead_name: 'Slow' });
    expect(second.status).toBe(409);
    expect((await errorOf(second)).code).toBe('idempotency_in_flight');
    release();
    expect((await first).status).toBeLessThan(300);
    expect(await recordCount(t.ctx, 'crm.Lead')).toBe(before + 1);
  });

  it('stores exactly one record for 100 concurrent creates with one key', async () => {
    const key = freshKey();
    const before = await recordCount(t.ctx, 'crm.Lead');
    const storedBefore = await storedKeys();
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => createLead(key, { lead_name: 'Hundred' })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s < 300)).not.toHaveLength(0);
    for (const status of statuses) expect([200, 201, 409]).toContain(status);
    expect(await recordCount(t.ctx, 'crm.Lead')).toBe(before + 1);
    expect(await storedKeys()).toBe(storedBefore + 1);
  });

  it('never shows user A’s response to user B reusing A’s key', async () => {
    await createUser(t.ctx, 'bob@example.com', 'bob-password');
    const bob = await apiKeyAuthorization(t.ctx, 'bob@example.com');
    const key = freshKey();
    const a = await createLead(key, { lead_name: 'Shared key' });
    const b = await createLead(key, { lead_name: 'Shared key' }, { authorization: bob });
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    const nameA = ((await a.json()) as { data: { name: string } }).data.name;
    const nameB = ((await b.json()) as { data: { name: string } }).data.name;
    expect(nameB).not.toBe(nameA);
  });

  it.each([
    ['empty', ''],
    ['over 255 characters', 'k'.repeat(256)],
    ['non-ASCII', 'clé'],
    ['a control character', 'a\tb'],
  ])('refuses a key that is %s with 400, running nothing', async (_label, key) => {
    const before = await recordCount(t.ctx, 'crm.Lead');
    const storedBefore = await storedKeys();
    const res = await createLead(key, { lead_name: 'Bad key' });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe('invalid_idempotency_key');
    expect(await recordCount(t.ctx, 'crm.Lead')).toBe(before);
    expect(await storedKeys()).toBe(storedBefore);
  });

  it('refuses keys with CR or LF (which HTTP parsers already refuse in headers)', () => {
    expect(isValidIdempotencyKey('a\r\nb')).toBe(false);
    expect(isValidIdempotencyKey('a\nb')).toBe(false);
    expect(isValidIdempotencyKey('k'.repeat(255))).toBe(true);
  });

  it('releases the key when the handler throws, so a retry runs', async () => {
    const key = freshKey();
    const query = t.ctx.db.query.bind(t.ctx.db);
    const spy = vi.spyOn(t.ctx.db, 'query').mockImplementation((async (sql: string, params?: unknown[]) => {
      if (sql.includes('INSERT INTO records')) throw new Error('database went away');
      return query(sql, params);
    }) as typeof t.ctx.db.query);
    const failed = await createLead(key, { lead_name: 'Retry me' });
    expect(failed.status).toBe(500);
    spy.mockRestore();
    const storedAfterFailure = await storedKeys();
    const retry = await createLead(key, { lead_name: 'Retry me' });
    expect(retry.status).toBeLessThan(300);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await storedKeys()).toBe(storedAfterFailure + 1);
  });

  it('never stores a 401', async () => {
    const storedBefore = await storedKeys();
    const res = await createLead(freshKey(), { lead_name: 'No auth' }, { authorization: 'token abc:wrong' });
    expect(res.status).toBe(401);
    expect(await storedKeys()).toBe(storedBefore);
  });

  it('ignores Idempotency-Key on GET', async () => {
    const key = freshKey();
    const storedBefore = await storedKeys();
    const first = await t.request('GET', LEADS, { headers: { 'idempotency-key': key } });
    const second = await t.request('GET', LEADS, { headers: { 'idempotency-key': key } });
    expect(first.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(await storedKeys()).toBe(storedBefore);
  });

  it('sweeps expired records from the database', async () => {
    const store = t.ctx.security.idempotency as DbIdempotencyStore;
    await store.begin('expired-key', 'fp', -1);
    const before = await storedKeys();
    await store.sweep();
    expect(await storedKeys()).toBe(before - 1);
  });
});
