import { decodeProtectedHeader } from 'jose';
import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FlaggedSchema } from '../../../src/protocol';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { isSdkError } from '../../../src/sdk/errors';
import { SecurityClient } from '../../../src/sdk/security';
import { decryptWithBackendKeys, ORIGIN, startBackend, type TestBackend } from '../helpers';

let backend: TestBackend;
beforeAll(async () => {
  backend = await startBackend();
});
afterEach(() => {
  DiscoveryClient.reset();
  backend.server.resetHandlers();
  backend.requests.length = 0;
  backend.env.setMode('metadata');
});
afterAll(() => backend.server.close());

const BODY = { customer_name: 'Ada', email: 'ada@example.com' };
const piiSchema: FlaggedSchema = { fields: [{}, { pii: true }] };
const encryptedSchema: FlaggedSchema = { fields: [{ encrypted: true }] };
const plainSchema: FlaggedSchema = { fields: [{}, { encrypted: false, pii: false }] };

function security() {
  return new SecurityClient({ baseUrl: ORIGIN });
}

async function isJwe(
  client: SecurityClient,
  body: unknown,
  url: string,
  method: string,
  schema?: FlaggedSchema,
): Promise<boolean> {
  const payload = await client.encryptPayload(body, url, method, schema);
  if (payload.contentType === 'application/json') {
    expect(payload.body).toBe(JSON.stringify(body));
    return false;
  }
  expect(payload.contentType).toBe('application/jose');
  return true;
}

describe('encryptPayload', () => {
  it('disabled mode: sends JSON and never fetches keys', async () => {
    backend.env.setMode('disabled');
    const client = security();
    expect(await isJwe(client, BODY, '/api/method/login', 'POST')).toBe(false);
    expect(await isJwe(client, BODY, '/api/resource/crm.Customer', 'POST', piiSchema)).toBe(false);
    expect(backend.to('/api/v1/security/jwks')).toHaveLength(0);
  });

  it('selective mode: encrypts only urls whose path matches a configured route glob', async () => {
    backend.env.setMode('selective', ['/api/method/crm.api.*']);
    const client = security();
    expect(await isJwe(client, BODY, `${ORIGIN}/api/method/login`, 'POST')).toBe(true);
    expect(await isJwe(client, BODY, '/api/method/crm.api.ping?x=1', 'POST')).toBe(true);
    expect(await isJwe(client, BODY, '/api/method/stock.api.ping', 'POST')).toBe(false);
    expect(await isJwe(client, BODY, '/api/resource/crm.Customer', 'POST', piiSchema)).toBe(false);
  });

  it('metadata mode: encrypts when the schema has a pii or an encrypted field, else sends JSON', async () => {
    const client = security();
    expect(await isJwe(client, BODY, '/api/resource/crm.Customer', 'POST', piiSchema)).toBe(true);
    expect(await isJwe(client, BODY, '/api/resource/crm.Customer', 'PUT', encryptedSchema)).toBe(true);
    expect(await isJwe(client, BODY, '/api/resource/stock.Item', 'POST', plainSchema)).toBe(false);
    expect(await isJwe(client, BODY, '/api/resource/stock.Item', 'POST')).toBe(false);
  });

  it('strict mode: encrypts every mutating method and leaves GET alone', async () => {
    backend.env.setMode('strict');
    const client = security();
    expect(await isJwe(client, BODY, '/api/resource/stock.Item', 'GET')).toBe(false);
    for (const method of ['POST', 'put', 'PATCH', 'DELETE']) {
      expect(await isJwe(client, BODY, '/api/resource/stock.Item', method)).toBe(true);
    }
  });

  it('strict mode: sends discovery queries as JSON, as the server expects them', async () => {
    backend.env.setMode('strict');
    const client = security();
    expect(await isJwe(client, BODY, `${ORIGIN}/api/gateway/discovery/query`, 'POST')).toBe(false);
    expect(await isJwe(client, BODY, '/api/method/login', 'POST')).toBe(true);
  });

  it('binds the JWE to method and path, with the active kid, and the backend decrypts it to the same body (a form, 10 kB)', async () => {
    const client = security();
    const { body } = await client.encryptPayload(
      BODY,
      `${ORIGIN}/api/resource/crm.Customer?x=1`,
      'post',
      piiSchema,
    );
    const header = decodeProtectedHeader(body);
    expect(header).toEqual({
      alg: 'RSA-OAEP-256',
      enc: 'A256GCM',
      kid: (await backend.env.keys.active()).kid,
      htm: 'POST',
      htu: '/api/resource/crm.Customer',
      iat: expect.any(Number),
      jti: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
    });
    expect(Math.abs((header.iat as number) - Date.now() / 1000)).toBeLessThan(3600);
    expect(await decryptWithBackendKeys(backend, body, 'POST', '/api/resource/crm.Customer')).toEqual(BODY);
    const large = { notes: 'é'.repeat(2_000) + 'x'.repeat(6_000) };
    const jwe = await client.encryptPayload(large, '/api/resource/crm.Customer', 'POST', piiSchema);
    expect(await decryptWithBackendKeys(backend, jwe.body, 'POST', '/api/resource/crm.Customer')).toEqual(
      large,
    );
    await expect(
      decryptWithBackendKeys(backend, body, 'PUT', '/api/resource/crm.Customer'),
    ).rejects.toMatchObject({
      code: 'decryption_failed',
    });
  });

  it('binds a relative URL to the page it is sent from, each time (the app moves between pages)', async () => {
    const client = security();
    const htuOf = async (url: string) =>
      decodeProtectedHeader((await client.encryptPayload(BODY, url, 'POST', piiSchema)).body).htu;
    try {
      vi.stubGlobal('location', { href: `${ORIGIN}/desk/crm/` });
      expect(await htuOf('api/records')).toBe('/desk/crm/api/records');
      expect(await htuOf('/api/resource/crm.Customer')).toBe('/api/resource/crm.Customer');
      vi.stubGlobal('location', { href: `${ORIGIN}/desk/hr/` });
      expect(await htuOf('api/records')).toBe('/desk/hr/api/records');
      expect(await htuOf('/api/resource/crm.Customer')).toBe('/api/resource/crm.Customer');
      expect(await htuOf('/api/x/../resource/crm.Lead')).toBe('/api/resource/crm.Lead');
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('fetches the config and the JWKS once for concurrent callers and reuses the cached key', async () => {
    const client = security();
    await Promise.all(
      Array.from({ length: 5 }, () =>
        client.encryptPayload(BODY, '/api/resource/crm.Customer', 'POST', piiSchema),
      ),
    );
    await client.encryptPayload(BODY, '/api/resource/crm.Lead', 'POST', piiSchema);
    expect(backend.to('/api/v1/security/config')).toHaveLength(1);
    expect(backend.to('/api/v1/security/jwks')).toHaveLength(1);
  });

  it('refetches the config and the JWKS on refreshKeys() and then encrypts to the new kid', async () => {
    const client = security();
    const first = await client.encryptPayload(BODY, '/api/resource/crm.Customer', 'POST', piiSchema);
    await backend.env.rotateKeys({ dropOld: true });
    await Promise.all([client.refreshKeys(), client.refreshKeys()]);
    const second = await client.encryptPayload(BODY, '/api/resource/crm.Customer', 'POST', piiSchema);

    expect(decodeProtectedHeader(second.body).kid).toBe((await backend.env.keys.active()).kid);
    expect(decodeProtectedHeader(second.body).kid).not.toBe(decodeProtectedHeader(first.body).kid);
    expect(backend.to('/api/v1/security/jwks')).toHaveLength(2);
    expect(backend.to('/api/v1/security/config')).toHaveLength(2);
  });

  it('throws encryption_failed, never plaintext, when encryption is required but the JWKS is unavailable', async () => {
    backend.env.setMode('strict');
    backend.server.use(http.get('*/api/v1/security/jwks', () => HttpResponse.json({}, { status: 503 })));
    const client = security();
    const error = await client
      .encryptPayload(BODY, '/api/resource/stock.Item', 'POST')
      .catch((e: unknown) => e);
    expect(isSdkError(error) && error.code).toBe('encryption_failed');
    // JSON is still fine where no encryption is required.
    expect(await isJwe(client, BODY, '/api/resource/stock.Item', 'GET')).toBe(false);
  });

  it('throws security_config_unavailable when the policy cannot be loaded, then loads it on the next call', async () => {
    backend.server.use(http.get('*/api/v1/security/config', () => HttpResponse.error(), { once: true }));
    const client = security();
    const error = await client
      .encryptPayload(BODY, '/api/resource/stock.Item', 'POST')
      .catch((e: unknown) => e);
    expect(isSdkError(error) && error.code).toBe('security_config_unavailable');
    expect(client.isLoaded).toBe(false);
    expect(await isJwe(client, BODY, '/api/resource/stock.Item', 'POST')).toBe(false);
    expect(client.config?.mode).toBe('metadata');
  });
});
