import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptRequestJwe } from '../../backend/security/jwe/decrypt-request-jwe';
import { parseDecryptedJson } from '../../backend/security/jwe/parse-decrypted-json';
import { createMockServer } from '../../mocks/node';
import { createMockBackend } from '../../mocks/support/create-mock-backend';
import { SecurityClient } from '../../src/sdk/security';
import { adminAuthorization, ORIGIN, startBackend, type TestBackend } from '../sdk/helpers';

describe('the browser worker bundle', () => {
  it('bundles for the browser without any Node-only module', async () => {
    const result = await build({
      entryPoints: ['mocks/browser.ts'],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(result.errors).toEqual([]);
    // The worker runs the platform's own API app: routes and middleware chain included.
    for (const file of ['backend/api-app.ts', 'backend/data/routes.ts', 'backend/middleware/chain.ts']) {
      expect(inputs).toContain(file);
    }
    expect(
      inputs.filter((p) =>
        /^node:|pglite|node_modules\/pg\/|backend\/db\/|passwords\.ts|file-key-store|key-material|desk\//.test(
          p,
        ),
      ),
    ).toEqual([]);
  });
});

describe('the WebCrypto key store of the browser worker', () => {
  it('decrypts what encryptPayload produced and refuses it for another request or after the key is dropped', async () => {
    const backend = await createMockBackend({ mode: 'strict', records: 'empty' });
    const security = new SecurityClient({
      baseUrl: 'http://worker.test',
      fetch: ((input: RequestInfo | URL) => backend.fetch(new Request(String(input)))) as typeof fetch,
    });
    const body = { item_code: 'W', item_name: 'Widget' };
    const { body: jwe } = await security.encryptPayload(body, '/api/resource/stock.Item', 'POST');
    const open = async (path: string) =>
      parseDecryptedJson(
        (await decryptRequestJwe(jwe, { method: 'POST', paths: [path] }, backend.keys)).plaintext,
      );

    expect(await open('/api/resource/stock.Item')).toEqual(body);
    await expect(open('/api/resource/stock.Warehouse')).rejects.toMatchObject({ code: 'decryption_failed' });
    await backend.rotateKeys({ dropOld: true });
    await expect(open('/api/resource/stock.Item')).rejects.toMatchObject({ code: 'unknown_key' });
  });
});

describe('the API app behind the handler', () => {
  let backend: TestBackend;
  beforeAll(async () => {
    backend = await startBackend();
  });
  afterAll(() => backend.server.close());

  it('validates discovery queries with the backend oracle', async () => {
    const response = await fetch(`${ORIGIN}/api/gateway/discovery/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resources: ['not a doctype'] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_query');
  });

  it('answers the data API only to a signed-in caller', async () => {
    const anonymous = await createMockServer({ baseUrl: 'http://anonymous.test' });
    const response = await anonymous.env.fetch(
      new Request('http://anonymous.test/api/resource/crm.Customer'),
    );
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });

  it('runs every sample RPC method offline, over the in-memory records', async () => {
    const headers = { ...(await adminAuthorization(backend)), 'content-type': 'application/json' };
    const call = async (method: string) =>
      fetch(`${ORIGIN}/api/method/${method}`, { method: 'POST', headers, body: '{}' });
    for (const method of ['crm.api.customer_count', 'stock.api.stock_value', 'support.api.open_count']) {
      const response = await call(method);
      expect(response.status, method).toBe(200);
      expect(typeof ((await response.json()) as { message: unknown }).message, method).toBe('number');
    }
  });

  it('refuses plaintext where the policy requires encryption, without storing anything', async () => {
    const count = async () =>
      (
        (await (
          await fetch(`${ORIGIN}/api/resource/crm.Customer`, { headers: await adminAuthorization(backend) })
        ).json()) as { total: number }
      ).total;
    const before = await count();
    const response = await fetch(`${ORIGIN}/api/resource/crm.Customer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ customer_name: 'Plain', email: 'plain@example.com' }),
    });
    expect(response.status).toBe(415);
    expect(await count()).toBe(before);
  });

  it("keeps a record's timeline offline: its changes and comments", async () => {
    const headers = { ...(await adminAuthorization(backend)), 'content-type': 'application/json' };
    const created = await fetch(`${ORIGIN}/api/resource/stock.Item`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ item_code: 'TL-1', item_name: 'Timeline', quantity: 1 }),
    });
    expect(created.status).toBe(201);
    const { name } = ((await created.json()) as { data: { name: string } }).data;
    const path = `${ORIGIN}/api/history/stock.Item/${name}`;
    const changed = await fetch(`${ORIGIN}/api/resource/stock.Item/${name}`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ quantity: 2 }),
    });
    expect(changed.status).toBe(200);
    const comment = await fetch(`${path}/comments`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ text: 'Counted again' }),
    });
    expect(comment.status).toBe(201);
    const timeline = (await (await fetch(path, { headers })).json()) as {
      data: Array<{ kind: string; text?: string; changes?: unknown }>;
    };
    expect(timeline.data.map((e) => e.kind)).toEqual(['create', 'update', 'comment']);
    expect(timeline.data[1]!.changes).toEqual([{ field: 'quantity', old: 1, new: 2 }]);
    expect(timeline.data[2]!.text).toBe('Counted again');
  });

  it('validates records with the DocType model and never echoes the value', async () => {
    const response = await fetch(`${ORIGIN}/api/resource/stock.Item`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ item_code: 'X', item_name: 'X', quantity: 'lots-of-secret' }),
    });
    const text = await response.text();
    expect(response.status).toBe(422);
    expect(JSON.parse(text).error.fields).toEqual([expect.objectContaining({ field: 'quantity' })]);
    expect(text).not.toContain('lots-of-secret');
  });
});
