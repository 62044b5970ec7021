/**
 * The mock backend and the server answer alike: the same list of requests goes to the offline mock (the API
 * app over in-memory stores, mocks/support/create-mock-backend.ts) and to the real app over an in-memory
 * PGlite, and every answer must carry the same status, error code, field errors and caching header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockBackend, MOCK_USER, type MockBackend } from '../../mocks/support/create-mock-backend';
import type { ServiceMetadata } from '../../src/protocol';
import { SecurityClient } from '../../src/sdk/security';
import { apiKeyAuthorization } from '../helpers/auth';
import { TEST_ORIGIN } from '../helpers/http';
import { createTestApp, type TestApp } from '../helpers/test-app';

/** One side of the comparison: how to send it a request, and an API key of its administrator. */
interface Target {
  fetch(request: Request): Promise<Response>;
  authorization: string;
}

/** One request of the list: built fresh for each target (a body can be read once). */
interface Case {
  name: string;
  build(target: Target): Promise<Request>;
}

/** What must be equal on both sides. */
interface Answer {
  status: number;
  code: string | null;
  fields: unknown;
  cacheControl: string | null;
  sessionCookie: boolean;
  message?: unknown;
}

const json = (target: Target | undefined, method: string, path: string, body?: unknown): Request =>
  new Request(`${TEST_ORIGIN}${path}`, {
    method,
    headers: {
      ...(target ? { authorization: target.authorization } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const listWith = (query: string) => async (t: Target) =>
  json(t, 'GET', `/api/resource/crm.Customer?${new URLSearchParams(query)}`);

/** A create encrypted the way the SDK does it, against the target's own published keys. */
async function encryptedCreate(target: Target): Promise<Request> {
  const security = new SecurityClient({
    baseUrl: TEST_ORIGIN,
    fetch: ((input: RequestInfo | URL) => target.fetch(new Request(String(input)))) as typeof fetch,
  });
  const path = '/api/resource/crm.Customer';
  // Metadata mode: the DocType's field flags (from its service's metadata) decide what is encrypted.
  const meta = (await (await target.fetch(json(target, 'GET', '/api/meta/crm'))).json()) as ServiceMetadata;
  const schema = meta.doctypes.find((d) => d.name === 'crm.Customer');
  const { body, contentType } = await security.encryptPayload(
    { customer_name: 'Ada', email: 'ada@example.com' },
    path,
    'POST',
    schema,
  );
  expect(contentType).toBe('application/jose');
  return new Request(`${TEST_ORIGIN}${path}`, {
    method: 'POST',
    headers: { authorization: target.authorization, 'content-type': contentType },
    body,
  });
}

const CASES: Case[] = [
  { name: 'security config', build: async () => json(undefined, 'GET', '/api/v1/security/config') },
  {
    name: 'login, right password',
    build: async () => json(undefined, 'POST', '/api/method/login', MOCK_USER),
  },
  {
    name: 'login, wrong password',
    build: async () => json(undefined, 'POST', '/api/method/login', { usr: MOCK_USER.usr, pwd: 'wrong' }),
  },
  {
    name: 'login, unknown user',
    build: async () => json(undefined, 'POST', '/api/method/login', { usr: 'nobody', pwd: 'admin' }),
  },
  {
    name: 'login, no password',
    build: async () => json(undefined, 'POST', '/api/method/login', { usr: 'x' }),
  },
  { name: 'list, signed out', build: async () => json(undefined, 'GET', '/api/resource/crm.Customer') },
  { name: 'list, unknown filter field', build: listWith('filters=[["nope","=",1]]') },
  { name: 'list, unknown filter operator', build: listWith('filters=[["customer_name","~","a"]]') },
  { name: 'list, filters not JSON', build: listWith('filters=[[') },
  { name: 'list, bad paging', build: listWith('limit_page_length=100000') },
  { name: 'list, unknown sort field', build: listWith('order_by=nope desc') },
  { name: 'list, unknown field', build: listWith('fields=["nope"]') },
  // Personal data is encrypted at rest: only equality reaches it (docs/security.md#personal-data-at-rest).
  { name: 'list, equality on a pii field', build: listWith('filters=[["email","=","ada@example.com"]]') },
  { name: 'list, pattern on a pii field', build: listWith('filters=[["email","like","%ada%"]]') },
  { name: 'list, comparison on a pii field', build: listWith('filters=[["phone",">","+1"]]') },
  { name: 'list, sorted by a pii field', build: listWith('order_by=email asc') },
  { name: 'list, unknown DocType', build: async (t) => json(t, 'GET', '/api/resource/crm.Nothing') },
  {
    name: 'create, invalid fields',
    build: async (t) =>
      json(t, 'POST', '/api/resource/stock.Item', { item_code: 'X', quantity: 'lots', colour: 'red' }),
  },
  {
    name: 'create, body not an object',
    build: async (t) => json(t, 'POST', '/api/resource/stock.Item', [1]),
  },
  {
    name: 'create, plaintext where encryption is required',
    build: async (t) => json(t, 'POST', '/api/resource/crm.Customer', { customer_name: 'Plain' }),
  },
  { name: 'RPC, unknown method', build: async (t) => json(t, 'POST', '/api/method/crm.api.nothing', {}) },
  { name: 'RPC, malformed name', build: async (t) => json(t, 'POST', '/api/method/..crm', {}) },
  {
    name: 'RPC, invalid kwargs',
    build: async (t) => json(t, 'POST', '/api/method/crm.api.customer_count', { status: 'Gone' }),
  },
  {
    name: 'RPC, customer count before',
    build: async (t) => json(t, 'POST', '/api/method/crm.api.customer_count', {}),
  },
  { name: 'create, encrypted', build: encryptedCreate },
  {
    name: 'RPC, customer count after',
    build: async (t) => json(t, 'POST', '/api/method/crm.api.customer_count', {}),
  },
  {
    name: 'RPC, stock value',
    build: async (t) => json(t, 'POST', '/api/method/stock.api.stock_value', {}),
  },
  {
    name: 'read, missing record',
    build: async (t) => json(t, 'GET', '/api/resource/crm.Customer/CUST-09999'),
  },
];

async function answerOf(target: Target, testCase: Case): Promise<Answer> {
  const response = await target.fetch(await testCase.build(target));
  const body = (await response.json().catch(() => null)) as {
    error?: { code?: string; fields?: unknown };
    message?: unknown;
    data?: { name?: string };
  } | null;
  const isRpc = testCase.name.startsWith('RPC') && response.ok;
  return {
    status: response.status,
    code: body?.error?.code ?? null,
    fields: body?.error?.fields ?? null,
    cacheControl: response.headers.get('cache-control'),
    sessionCookie: /(^|,\s*)sid=[^;]+/.test(response.headers.get('set-cookie') ?? ''),
    // Answers that hold no secrets and no per-process randomness are compared whole.
    ...(isRpc ? { message: body?.message } : {}),
    ...(testCase.name === 'create, encrypted' ? { message: body?.data?.name } : {}),
  };
}

let server: TestApp;
let mock: MockBackend;
let targets: { server: Target; mock: Target };

beforeAll(async () => {
  server = await createTestApp({ config: { 'security.payload_encryption.mode': 'metadata' } });
  mock = await createMockBackend({ baseUrl: TEST_ORIGIN, records: 'empty' });
  targets = {
    server: { fetch: async (r) => server.app.fetch(r), authorization: await apiKeyAuthorization(server.ctx) },
    mock: { fetch: (r) => mock.fetch(r), authorization: await apiKeyAuthorization(mock.ctx) },
  };
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('the mock backend and the server', () => {
  it('answer the same list of requests with the same status, error code and caching', async () => {
    const seen: Array<{ name: string; server: Answer; mock: Answer }> = [];
    for (const testCase of CASES) {
      seen.push({
        name: testCase.name,
        server: await answerOf(targets.server, testCase),
        mock: await answerOf(targets.mock, testCase),
      });
    }
    for (const { name, server: s, mock: m } of seen) expect({ name, ...m }).toEqual({ name, ...s });
    // The list exercises what it claims to: successes and each kind of refusal.
    const byName = Object.fromEntries(seen.map((s) => [s.name, s.server]));
    expect(byName['login, right password']).toMatchObject({ status: 200, sessionCookie: true });
    expect(byName['login, wrong password']).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(byName['list, unknown filter field']).toMatchObject({ status: 400, code: 'invalid_filters' });
    expect(byName['list, equality on a pii field']).toMatchObject({ status: 200, code: null });
    for (const refused of ['pattern on', 'comparison on', 'sorted by']) {
      expect(byName[`list, ${refused} a pii field`]).toMatchObject({ status: 400, code: 'field_encrypted' });
    }
    expect(byName['create, invalid fields']).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(byName['RPC, unknown method']).toMatchObject({ status: 404, code: 'unknown_method' });
    expect(byName['create, encrypted']).toMatchObject({ status: 201, message: 'CUST-00001' });
    expect(byName['RPC, customer count after']).toMatchObject({ status: 200, message: 1 });
  }, 120_000);

  it('refuse to sum a pii field, as an RPC method would ask through its records', async () => {
    const codeOf = async (sum: () => Promise<number>) =>
      sum().then(
        () => null,
        (e: { code?: string }) => e.code,
      );
    for (const ctx of [server.ctx, mock.ctx]) {
      expect(await codeOf(async () => ctx.records.sum('crm.Customer', ['phone']))).toBe('field_encrypted');
      expect(
        await codeOf(async () =>
          ctx.records.sum('stock.Item', ['quantity'], { whereIn: { field: 'item_code', values: ['X'] } }),
        ),
      ).toBe(null);
    }
  });
});
