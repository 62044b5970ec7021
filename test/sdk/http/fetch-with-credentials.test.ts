import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FlaggedSchema } from '../../../src/protocol';
import { isSdkError } from '../../../src/sdk/errors';
import { createCsrfTokenStore, createHttpClient, HttpError } from '../../../src/sdk/http';
import { SecurityClient } from '../../../src/sdk/security';
import { ORIGIN, startBackend, storedRecord, type TestBackend } from '../helpers';

let backend: TestBackend;
beforeAll(async () => {
  backend = await startBackend();
});
afterEach(() => {
  backend.server.resetHandlers();
  backend.requests.length = 0;
  backend.env.setMode('metadata');
  backend.env.store.clear();
});
afterAll(() => backend.server.close());

const customerSchema: FlaggedSchema = { fields: [{}, { pii: true }] };

function setup() {
  const security = new SecurityClient({ baseUrl: ORIGIN });
  const fetchSpy = vi.fn((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const client = createHttpClient({
    baseUrl: ORIGIN,
    security,
    fetch: fetchSpy,
    csrf: createCsrfTokenStore(undefined),
  });
  return { security, client, fetchSpy };
}

const sentHeaders = (spy: ReturnType<typeof setup>['fetchSpy'], call = 0) =>
  new Headers(spy.mock.calls[call]![1]!.headers);

describe('fetchWithCredentials', () => {
  it('sends credentials, JSON and X-Platform-Service, and resolves to the parsed answer', async () => {
    const { client, fetchSpy } = setup();
    const answer = await client.fetch<{ data: unknown[]; total: number }>('/api/resource/stock.Item', {
      service: 'stock',
      query: { limit_page_length: 5, filters: undefined },
    });

    expect(answer).toEqual({ data: [], total: 0 });
    const [url, init] = fetchSpy.mock.calls[0]!;
    expect(url).toBe(`${ORIGIN}/api/resource/stock.Item?limit_page_length=5`);
    expect(init?.credentials).toBe('include');
    expect(sentHeaders(fetchSpy).get('X-Platform-Service')).toBe('stock');
    expect(sentHeaders(fetchSpy).get('Accept')).toBe('application/json');
  });

  it('stores the CSRF token from login and sends it on unsafe methods only, until logout', async () => {
    const { client, fetchSpy } = setup();
    const answer = await client.login('Administrator', 'admin');
    expect(answer.message).toBe('Logged In');
    expect(client.csrf.get()).toBe(answer.csrf_token);

    await client.fetch('/api/resource/stock.Item');
    await client.fetch('/api/resource/stock.Item', {
      method: 'POST',
      body: { item_code: 'A', item_name: 'A' },
    });
    expect(sentHeaders(fetchSpy, 1).get('X-CSRF-Token')).toBeNull();
    expect(sentHeaders(fetchSpy, 2).get('X-CSRF-Token')).toBe(answer.csrf_token);

    await client.logout();
    expect(client.csrf.get()).toBeUndefined();
  });

  it('turns a non-2xx answer into one HttpError with the server code, status and field errors', async () => {
    const { client } = setup();
    const error = await client
      .fetch('/api/resource/stock.Item', { method: 'POST', body: { quantity: -1 } })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(HttpError);
    expect(isSdkError(error)).toBe(true);
    const httpError = error as HttpError;
    expect(httpError.code).toBe('validation_failed');
    expect(httpError.status).toBe(422);
    expect(httpError.fields?.map((f) => f.field).sort()).toEqual(['item_code', 'item_name', 'quantity']);
  });

  it('encrypts through the loaded policy: a pii schema sends application/jose and the record is stored', async () => {
    const { client, security, fetchSpy } = setup();
    await security.load();
    const { data } = await client.fetch<{ data: { name: string } }>(
      '/api/resource/crm.Customer',
      { method: 'POST', body: { customer_name: 'Ada', email: 'ada@example.com' }, service: 'crm' },
      customerSchema,
    );

    expect(sentHeaders(fetchSpy).get('Content-Type')).toBe('application/jose');
    expect(String(fetchSpy.mock.calls[0]![1]!.body)).not.toContain('ada@example.com');
    expect((await storedRecord(backend, 'crm.Customer', data.name))?.email).toBe('ada@example.com');
  });

  it('loads the policy and retries once encrypted when plaintext is refused with 415', async () => {
    backend.env.setMode('strict');
    const { client, security } = setup();
    expect(security.isLoaded).toBe(false);
    await client.fetch('/api/resource/stock.Item', {
      method: 'POST',
      body: { item_code: 'B', item_name: 'B' },
    });

    await backend.settle();
    const posts = backend.to('/api/resource/stock.Item', 'POST');
    expect(posts.map((p) => p.headers.get('content-type'))).toEqual(['application/json', 'application/jose']);
    expect(security.isLoaded).toBe(true);
  });

  it('refetches the JWKS and retries once on an unknown_key answer after a key rotation', async () => {
    const { client, security } = setup();
    await security.encryptPayload({}, '/api/resource/crm.Customer', 'POST', customerSchema); // warm the key cache
    await backend.env.rotateKeys({ dropOld: true });

    const { data } = await client.fetch<{ data: { customer_name: string } }>(
      '/api/resource/crm.Customer',
      { method: 'POST', body: { customer_name: 'Grace' } },
      customerSchema,
    );

    expect(data.customer_name).toBe('Grace');
    expect(backend.to('/api/resource/crm.Customer', 'POST')).toHaveLength(2);
    expect(backend.to('/api/v1/security/jwks')).toHaveLength(2);
  });

  it('retries an unknown_key answer only once', async () => {
    backend.server.use(
      http.post('*/api/resource/crm.Customer', () =>
        HttpResponse.json({ error: { code: 'unknown_key', message: 'refetch' } }, { status: 400 }),
      ),
    );
    const { client } = setup();
    const error = await client
      .fetch('/api/resource/crm.Customer', { method: 'POST', body: { customer_name: 'X' } }, customerSchema)
      .catch((e: unknown) => e);
    expect(isSdkError(error) && error.code).toBe('unknown_key');
    expect(backend.to('/api/resource/crm.Customer', 'POST')).toHaveLength(2);
  });

  it('refuses a non-JSON body where encryption is required instead of sending it in clear', async () => {
    backend.env.setMode('strict');
    const { client, security } = setup();
    await security.load();
    const form = new FormData();
    form.set('item_code', 'C');
    const error = await client
      .fetch('/api/resource/stock.Item', { method: 'POST', body: form })
      .catch((e: unknown) => e);
    expect(isSdkError(error) && error.code).toBe('encryption_failed');
    expect(backend.to('/api/resource/stock.Item', 'POST')).toHaveLength(0);
  });

  it('passes an abort through unchanged and codes a network failure as network_error', async () => {
    const { client } = setup();
    const controller = new AbortController();
    controller.abort();
    const aborted = await client
      .fetch('/api/resource/stock.Item', { signal: controller.signal })
      .catch((e: unknown) => e);
    expect((aborted as Error).name).toBe('AbortError');

    backend.server.use(http.get('*/api/resource/stock.Item', () => HttpResponse.error(), { once: true }));
    const failed = await client.fetch('/api/resource/stock.Item').catch((e: unknown) => e);
    expect(isSdkError(failed) && failed.code).toBe('network_error');
  });
});

describe('fetchWithCredentials after a mode change on the server', () => {
  it('rereads the policy on encryption_disabled and resends as JSON once', async () => {
    const { client, security } = setup();
    await security.load(); // metadata mode
    backend.env.setMode('disabled');
    await client.fetch(
      '/api/resource/crm.Customer',
      { method: 'POST', body: { customer_name: 'Mode Change' } },
      customerSchema,
    );

    await backend.settle();
    const posts = backend.to('/api/resource/crm.Customer', 'POST');
    expect(posts.map((p) => p.headers.get('content-type'))).toEqual(['application/jose', 'application/json']);
    expect(security.config?.mode).toBe('disabled');
  });
});

describe('createCsrfTokenStore', () => {
  it('keeps the token in the given storage so a reloaded page still sends it, and clears it there', () => {
    const storage = new Map<string, string>();
    const sessionLike = {
      getItem: (k: string) => storage.get(k) ?? null,
      setItem: (k: string, v: string) => void storage.set(k, v),
      removeItem: (k: string) => void storage.delete(k),
    };
    createCsrfTokenStore(sessionLike).set('token-1');
    const afterReload = createCsrfTokenStore(sessionLike);
    expect(afterReload.get()).toBe('token-1');
    afterReload.clear();
    expect(createCsrfTokenStore(sessionLike).get()).toBeUndefined();
  });
});
