/**
 * The SDK against the REAL backend: the Hono app with its whole middleware chain (PayloadDecryption with the
 * server's own JWE decryption, CSRF, auth) over an in-memory database. The SDK's fetch is the app's `fetch`
 * behind a small cookie jar, which is what a browser with `credentials: 'include'` does.
 */
import { decodeProtectedHeader } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';
import { MemoryKeyStore } from '../../../backend/security/keys/memory-key-store';
import { frameworkMDataProvider } from '../../../src/sdk/data';
import { fetchServiceMetadata } from '../../../src/sdk/data/service-metadata';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { isSdkError } from '../../../src/sdk/errors';
import { createCsrfTokenStore, createHttpClient } from '../../../src/sdk/http';
import { SecurityClient } from '../../../src/sdk/security';
import { TEST_ORIGIN } from '../../helpers/http';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let testApp: TestApp;
/** One in-memory database for every app of this file (opening PGlite is the slow part). */
let database: Database;
let clock = Date.now();
let keys: MemoryKeyStore;
const GRACE_MS = 60_000;
const sent: Array<{ method: string; path: string; contentType: string | null; body: string }> = [];

/** `fetch` as a browser page on TEST_ORIGIN: sends the origin and the cookies the app set. */
function browserFetch(app: TestApp['app']): typeof fetch {
  const jar = new Map<string, string>();
  return async (input, init) => {
    const request = new Request(input, init);
    const headers = new Headers(request.headers);
    headers.set('Origin', TEST_ORIGIN);
    if (jar.size > 0 && request.credentials !== 'omit')
      headers.set('Cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text();
    sent.push({
      method: request.method,
      path: new URL(request.url).pathname,
      contentType: headers.get('content-type'),
      body: body ?? '',
    });
    const response = await app.fetch(new Request(request.url, { method: request.method, headers, body }));
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, value] = pair!.split('=');
      if (name) jar.set(name.trim(), value ?? '');
    }
    return response;
  };
}

async function sdk() {
  const fetch = browserFetch(testApp.app);
  const security = new SecurityClient({ baseUrl: TEST_ORIGIN, fetch });
  const http = createHttpClient({
    baseUrl: TEST_ORIGIN,
    security,
    fetch,
    csrf: createCsrfTokenStore(undefined),
  });
  const discovery = new DiscoveryClient({ gatewayUrl: TEST_ORIGIN, fetch });
  await http.login('Administrator', 'admin');
  await security.load();
  const provider = frameworkMDataProvider({ discovery, http });
  const crm = await discovery.loadManifest('crm');
  const meta = await fetchServiceMetadata(crm.metaUrl, { http });
  const customerSchema = meta.doctypes.find((d) => d.name === 'crm.Customer')!;
  return { security, http, discovery, provider, customerSchema };
}

/** The record as the server stored it, read back through its record store (personal data is encrypted at rest). */
async function storedRow(doctype: string, name: string): Promise<Record<string, unknown> | undefined> {
  return testApp.ctx.records.get(testApp.ctx.doctypes.get(doctype)!, name);
}

beforeAll(async () => {
  database = await openDatabase({ memory: true });
  keys = await MemoryKeyStore.create({ graceMs: GRACE_MS, now: () => clock });
  testApp = await createTestApp({
    config: { 'security.payload_encryption.mode': 'metadata' },
    keys,
    database,
  });
});
afterEach(() => {
  sent.length = 0;
});
afterAll(async () => {
  await testApp.close();
  await database.close();
});

describe('the SDK against the real backend', () => {
  it('POSTs an encrypted crm.Customer that the server decrypts and stores', async () => {
    const { provider, customerSchema } = await sdk();
    const { data } = await provider.create({
      resource: 'crm.Customer',
      variables: { customer_name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0000' },
      meta: { schema: customerSchema },
    });

    const post = sent.find((r) => r.method === 'POST' && r.path === '/api/resource/crm.Customer')!;
    expect(post.contentType).toBe('application/jose');
    expect(post.body).not.toContain('ada@example.com');
    expect(decodeProtectedHeader(post.body)).toMatchObject({
      htm: 'POST',
      htu: '/api/resource/crm.Customer',
    });
    expect(await storedRow('crm.Customer', String(data.name))).toMatchObject({
      customer_name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '+44 20 7946 0000',
    });
  });

  it('sends stock.Item as plain JSON, which metadata mode accepts', async () => {
    const { provider } = await sdk();
    const { data } = await provider.create({
      resource: 'stock.Item',
      variables: { item_code: 'NUT', item_name: 'Nut', quantity: 12 },
    });
    const post = sent.find((r) => r.method === 'POST' && r.path === '/api/resource/stock.Item')!;
    expect(post.contentType).toBe('application/json');
    expect(await storedRow('stock.Item', String(data.name))).toMatchObject({
      item_code: 'NUT',
      quantity: 12,
    });
  });

  it('has plaintext for a flagged DocType refused by the server with 415; the data provider encrypts it anyway', async () => {
    const { http, provider } = await sdk();
    // Sent as JSON (no schema says what is flagged): the server refuses it.
    const error = await http
      .fetch('/api/resource/crm.Customer', {
        method: 'POST',
        body: { customer_name: 'No Schema' },
        service: 'crm',
      })
      .catch((e: unknown) => e);
    expect(isSdkError(error) && error.status).toBe(415);
    // The data provider given no meta.schema reads the DocType's flags from its owner and encrypts.
    sent.length = 0;
    const { data } = await provider.create({
      resource: 'crm.Customer',
      variables: { customer_name: 'No Schema', email: 'no.schema@example.com' },
    });
    const [post] = sent.filter((r) => r.method === 'POST' && r.path === '/api/resource/crm.Customer');
    expect(post!.contentType).toBe('application/jose');
    expect(await storedRow('crm.Customer', String(data.name))).toMatchObject({
      email: 'no.schema@example.com',
    });
  });

  it('recovers from a retired key: unknown_key, JWKS refetch, one retry to the new kid', async () => {
    const { provider, customerSchema } = await sdk();
    const created = await provider.create({
      resource: 'crm.Customer',
      variables: { customer_name: 'Grace Hopper' },
      meta: { schema: customerSchema },
    });
    await keys.rotate();
    clock += GRACE_MS + 1; // the key the SDK holds is past its grace period
    sent.length = 0;
    const { data } = await provider.update({
      resource: 'crm.Customer',
      id: created.data.id!,
      variables: { email: 'grace@example.com' },
      meta: { schema: customerSchema },
    });

    const puts = sent.filter((r) => r.method === 'PUT');
    const active = (await keys.active()).kid;
    expect(puts.map((r) => decodeProtectedHeader(r.body).kid === active)).toEqual([false, true]);
    expect(sent.filter((r) => r.path === '/api/v1/security/jwks')).toHaveLength(1);
    expect(await storedRow('crm.Customer', String(data.name))).toMatchObject({ email: 'grace@example.com' });
  });

  it('rereads a stale config whose active kid is no longer in the JWKS, without sending plaintext', async () => {
    const { provider, customerSchema } = await sdk(); // config (and its kid) loaded, no key fetched yet
    await keys.rotate();
    clock += GRACE_MS + 1;
    const { data } = await provider.create({
      resource: 'crm.Customer',
      variables: { customer_name: 'Alan Turing', email: 'alan@example.com' },
      meta: { schema: customerSchema },
    });

    const posts = sent.filter((r) => r.method === 'POST' && r.path === '/api/resource/crm.Customer');
    expect(posts).toHaveLength(1);
    expect(decodeProtectedHeader(posts[0]!.body).kid).toBe((await keys.active()).kid);
    expect(await storedRow('crm.Customer', String(data.name))).toMatchObject({ email: 'alan@example.com' });
  });
});

describe.each(['selective', 'strict'] as const)('the SDK against the real backend in %s mode', (mode) => {
  let modeApp: TestApp;
  beforeAll(async () => {
    modeApp = await createTestApp({ config: { 'security.payload_encryption.mode': mode }, database });
  });
  afterAll(async () => {
    await modeApp.close();
  });

  it('logs in with an encrypted body and writes what the server accepts', async () => {
    const fetch = browserFetch(modeApp.app);
    const security = new SecurityClient({ baseUrl: TEST_ORIGIN, fetch });
    const http = createHttpClient({
      baseUrl: TEST_ORIGIN,
      security,
      fetch,
      csrf: createCsrfTokenStore(undefined),
    });
    await security.load();
    await http.login('Administrator', 'admin');
    const provider = frameworkMDataProvider({
      discovery: new DiscoveryClient({ gatewayUrl: TEST_ORIGIN, fetch }),
      http,
    });
    const { data } = await provider.create({
      resource: 'stock.Item',
      variables: { item_code: 'K', item_name: 'Key' },
    });
    await provider.deleteOne({ resource: 'stock.Item', id: data.id! });

    const login = sent.find((r) => r.path === '/api/method/login')!;
    const create = sent.find((r) => r.method === 'POST' && r.path === '/api/resource/stock.Item')!;
    expect(login.contentType).toBe('application/jose');
    expect(create.contentType).toBe(mode === 'strict' ? 'application/jose' : 'application/json');
    expect(await modeApp.ctx.db.query('SELECT 1 FROM records WHERE name = $1', [data.name])).toMatchObject({
      rows: [],
    });
  });
});
