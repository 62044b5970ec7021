import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockEnvironment } from '../../mocks/support/environment';
import { createWebCryptoKeyRing } from '../../mocks/support/webcrypto-key-ring';
import { SecurityClient } from '../../src/sdk/security';
import { ORIGIN, startBackend, type TestBackend } from '../sdk/helpers';

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
    expect(inputs.some((p) => p.includes('backend/gateway/oracle.ts'))).toBe(true);
    expect(
      inputs.filter((p) => /^node:|pglite|node_modules\/pg\/|backend\/db\/|node-key-ring/.test(p)),
    ).toEqual([]);
  });
});

describe('the WebCrypto key ring of the browser worker', () => {
  it('decrypts what encryptPayload produced and refuses it for another request or after the key is dropped', async () => {
    const keyRing = await createWebCryptoKeyRing();
    const env = createMockEnvironment({ keyRing, mode: 'strict' });
    const answers: Record<string, () => Promise<unknown>> = {
      '/api/v1/security/config': async () => ({
        mode: env.policy.mode,
        jwks_uri: '/api/v1/security/jwks',
        routes: env.policy.routes,
        kid: await keyRing.activeKid(),
      }),
      '/api/v1/security/jwks': () => keyRing.jwks(),
    };
    const security = new SecurityClient({
      baseUrl: 'http://worker.test',
      fetch: (async (input: RequestInfo | URL) =>
        Response.json(await answers[new URL(String(input)).pathname]!())) as typeof fetch,
    });
    const body = { item_code: 'W', item_name: 'Widget' };
    const { body: jwe } = await security.encryptPayload(body, '/api/resource/stock.Item', 'POST');

    expect(await keyRing.decrypt(jwe, 'POST', '/api/resource/stock.Item')).toEqual(body);
    await expect(keyRing.decrypt(jwe, 'POST', '/api/resource/stock.Warehouse')).rejects.toMatchObject({
      code: 'decryption_failed',
    });
    await keyRing.rotate({ dropOld: true });
    await expect(keyRing.decrypt(jwe, 'POST', '/api/resource/stock.Item')).rejects.toMatchObject({
      code: 'unknown_key',
    });
  });
});

describe('the gateway and data handlers', () => {
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

  it('refuses plaintext where the policy requires encryption, without storing anything', async () => {
    const count = async () =>
      ((await (await fetch(`${ORIGIN}/api/resource/crm.Customer`)).json()) as { total: number }).total;
    const before = await count();
    const response = await fetch(`${ORIGIN}/api/resource/crm.Customer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ customer_name: 'Plain', email: 'plain@example.com' }),
    });
    expect(response.status).toBe(415);
    expect(await count()).toBe(before);
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
