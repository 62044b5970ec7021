import { Hono } from 'hono';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AppEnv } from '../../../backend/http/env';
import { handleError } from '../../../backend/http/errors';
import { idempotency, isValidIdempotencyKey } from '../../../backend/middleware/idempotency';
import type { DbIdempotencyStore } from '../../../backend/security/idempotency/db-idempotency-store';
import { MemoryIdempotencyStore } from '../../../backend/security/idempotency/memory-idempotency-store';
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

  it('makes a duplicate that arrives while the first runs wait for it and replay its answer', async () => {
    const key = freshKey();
    const records = t.ctx.records;
    const atomically = records.atomically.bind(records);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    vi.spyOn(records, 'atomically').mockImplementation(async (work) => {
      await gate;
      return atomically(work);
    });
    const store = t.ctx.security.idempotency;
    const begin = store.begin.bind(store);
    const states: string[] = [];
    vi.spyOn(store, 'begin').mockImplementation(async (...args) => {
      const result = await begin(...args);
      states.push(result.state);
      return result;
    });
    const before = await recordCount(t.ctx, 'crm.Lead');
    const first = createLead(key, { lead_name: 'Slow' });
    const second = createLead(key, { lead_name: 'Slow' });
    // The duplicate found the key in flight before the first could write anything.
    await vi.waitFor(() => expect(states).toContain('in_flight'));
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(await b.text()).toBe(await a.text());
    expect(await recordCount(t.ctx, 'crm.Lead')).toBe(before + 1);
  });

  it('stores exactly one record for 20 concurrent creates with one key, every answer the same 201', async () => {
    const key = freshKey();
    const before = await recordCount(t.ctx, 'crm.Lead');
    const storedBefore = await storedKeys();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => createLead(key, { lead_name: 'Twenty' })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    const bodies = await Promise.all(responses.map((r) => r.text()));
    expect(new Set(bodies).size).toBe(1);
    expect(responses.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    expect(await recordCount(t.ctx, 'crm.Lead')).toBe(before + 1);
    expect(await storedKeys()).toBe(storedBefore + 1);
  });

  it('stores the answer in the transaction of the write: an answer that cannot be stored leaves no record', async () => {
    const key = freshKey();
    const store = t.ctx.security.idempotency;
    const complete = store.complete.bind(store);
    const spy = vi.spyOn(store, 'complete').mockImplementation(async (k, owner, response, tx) => {
      expect(tx).toBeDefined();
      await complete(k, owner, response, tx);
      throw new Error('disk went away after the answer');
    });
    const before = await recordCount(t.ctx, 'crm.Lead');
    const storedBefore = await storedKeys();
    const failed = await createLead(key, { lead_name: 'All or nothing' });
    expect(failed.status).toBe(500);
    expect(await recordCount(t.ctx, 'crm.Lead')).toBe(before);
    expect(await storedKeys()).toBe(storedBefore);
    spy.mockRestore();
    const retry = await createLead(key, { lead_name: 'All or nothing' });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await recordCount(t.ctx, 'crm.Lead')).toBe(before + 1);
  });

  it('deletes once: a retried delete replays its answer instead of 404', async () => {
    const created = await createLead(freshKey(), { lead_name: 'To delete' });
    const { name } = ((await created.json()) as { data: { name: string } }).data;
    const key = freshKey();
    const del = () =>
      t.request('DELETE', `${LEADS}/${encodeURIComponent(name)}`, { headers: { 'idempotency-key': key } });
    const first = await del();
    expect(first.status).toBe(200);
    const again = await del();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(await first.text());
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

  it('releases the key when the write fails, so a retry runs', async () => {
    const key = freshKey();
    const spy = vi.spyOn(t.ctx.db, 'transaction').mockRejectedValue(new Error('database went away'));
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

  it('keeps a stored answer in the database when its run is released afterwards', async () => {
    const store = t.ctx.security.idempotency;
    const begun = await store.begin('released-after-commit', 'fp', 60_000);
    if (begun.state !== 'new') throw new Error(`expected a new key, got ${begun.state}`);
    const response = { status: 201, headers: { 'content-type': 'application/json' }, body: '{"data":{}}' };
    expect(await store.complete('released-after-commit', 'another run', response)).toBe(false);
    expect(await store.complete('released-after-commit', begun.owner, response)).toBe(true);
    await store.release('released-after-commit', begun.owner);
    expect(await store.begin('released-after-commit', 'fp', 60_000)).toEqual({ state: 'replay', response });
  });

  it('keeps the answer of a create holding personal data sealed, and replays it in clear', async () => {
    const key = freshKey();
    const email = `sealed-${counter}@example.com`;
    const send = async () =>
      sendJose(
        t,
        'POST',
        CUSTOMERS,
        await sdkJwe(t.ctx, 'POST', CUSTOMERS, { customer_name: 'Sealed answer', email }),
        { 'idempotency-key': key },
      );
    const first = await send();
    expect(first.status).toBe(201);
    const answer = await first.text();
    // Administrator reads personal data: the answer holds the email, the row must not.
    expect(answer).toContain(email);
    const { rows } = await t.ctx.db.query<{ body: string }>(
      "SELECT body FROM platform_idempotency WHERE body LIKE 'enc1.%'",
    );
    const dump = JSON.stringify((await t.ctx.db.query('SELECT * FROM platform_idempotency')).rows);
    expect(dump).not.toContain(email);
    expect(rows.length).toBeGreaterThan(0);
    const replayed = await send();
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await replayed.text()).toBe(answer);
  });

  it('refuses to replay a sealed answer moved to another key, as integrity_failed', async () => {
    const store = t.ctx.security.idempotency;
    const response = { status: 201, headers: { 'content-type': 'application/json' }, body: '{"data":{}}' };
    for (const key of ['sealed-a', 'sealed-b']) {
      const begun = await store.begin(key, 'fp', 60_000);
      if (begun.state !== 'new') throw new Error(`expected a new key, got ${begun.state}`);
      await store.complete(key, begun.owner, response);
    }
    await t.ctx.db.query(
      `UPDATE platform_idempotency SET body = (SELECT body FROM platform_idempotency WHERE key = 'sealed-a')
        WHERE key = 'sealed-b'`,
    );
    expect(await store.begin('sealed-a', 'fp', 60_000)).toEqual({ state: 'replay', response });
    const refused = store.begin('sealed-b', 'fp', 60_000);
    await expect(refused).rejects.toMatchObject({ code: 'integrity_failed' });
    // Said in the client's words, not the name of the table the answer is kept in.
    await expect(refused).rejects.toThrow(/Idempotency-Key/);
    await expect(refused).rejects.not.toThrow(/platform_idempotency/);
  });

  it('sweeps expired records from the database', async () => {
    const store = t.ctx.security.idempotency as DbIdempotencyStore;
    await store.begin('expired-key', 'fp', -1);
    const before = await storedKeys();
    await store.sweep();
    expect(await storedKeys()).toBe(before - 1);
  });
});

describe('IdempotencyMiddleware waiting for a run in flight', () => {
  it('answers 409 idempotency_in_flight with Retry-After once the wait is over, then replays', async () => {
    const app = new Hono<AppEnv>();
    app.onError(handleError(() => {}));
    app.use('*', async (c, next) => {
      c.set('credentialHash', 'caller');
      await next();
    });
    app.use('*', idempotency({ store: new MemoryIdempotencyStore(), ttlMs: 60_000, waitMs: 20 }));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let runs = 0;
    app.post('/work', async (c) => {
      runs++;
      await gate;
      return c.json({ run: runs }, 201);
    });
    const send = () =>
      app.request('/work', {
        method: 'POST',
        headers: { 'idempotency-key': 'k', 'content-type': 'application/json' },
        body: '{}',
      });
    const first = send();
    const second = await send();
    expect(second.status).toBe(409);
    expect(second.headers.get('retry-after')).toBe('1');
    expect((await errorOf(second)).code).toBe('idempotency_in_flight');
    release();
    expect((await first).status).toBe(201);
    const third = await send();
    expect(third.status).toBe(201);
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(runs).toBe(1);
  });
});
