/**
 * The SDK stamps a JWE's `iat` on the server's clock, learned from the security config answer's `Date`
 * (docs/sdk.md#clocks): a machine whose clock is minutes off still writes through the real backend app.
 */
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../../backend/server';
import { SecurityClient } from '../../../src/sdk/security';
import { apiKeyAuthorization } from '../../helpers/auth';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
let server: RunningServer;
let authorization: string;

beforeAll(async () => {
  t = await createTestApp({ config: { 'security.payload_encryption.mode': 'strict' } });
  authorization = await apiKeyAuthorization(t.ctx);
  server = await startServer(t.app, { host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await server?.close();
  await t?.close();
});

const SKEW_MS = 7 * 60_000;
const url = () => `${server.url}/api/resource/crm.Lead`;

async function create(client: SecurityClient, name: string): Promise<Response> {
  const payload = await client.encryptPayload({ lead_name: name, source: 'Website' }, url(), 'POST');
  expect(payload.contentType).toBe('application/jose');
  return fetch(url(), {
    method: 'POST',
    headers: { authorization, 'content-type': payload.contentType },
    body: payload.body,
  });
}

const code = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;

describe('the SDK on the server clock', () => {
  for (const [label, skew] of [
    ['fast', SKEW_MS],
    ['slow', -SKEW_MS],
  ] as const) {
    it(`writes with a client clock ${SKEW_MS / 60_000} minutes ${label}: iat is the server's time`, async () => {
      const client = new SecurityClient({ baseUrl: server.url, now: () => Date.now() + skew });
      await client.load();
      expect(Math.abs(client.serverNow() - Date.now())).toBeLessThan(5_000);
      const payload = await client.encryptPayload({ lead_name: 'x' }, url(), 'POST');
      const { iat } = decodeProtectedHeader(payload.body) as { iat: number };
      expect(Math.abs(iat * 1000 - Date.now())).toBeLessThan(5_000);
      const res = await create(client, `Skewed ${label}`);
      expect(res.status).toBe(201);
    });
  }

  it('without the Date header the skewed clock is used as it is, and the server refuses it as replayed', async () => {
    const stripDate: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const headers = new Headers(res.headers);
      headers.delete('date');
      return new Response(await res.arrayBuffer(), { status: res.status, headers });
    };
    const client = new SecurityClient({
      baseUrl: server.url,
      fetch: stripDate,
      now: () => Date.now() + SKEW_MS,
    });
    const res = await create(client, 'Skewed without Date');
    expect(res.status).toBe(400);
    expect(await code(res)).toBe('replayed');
  });
});
