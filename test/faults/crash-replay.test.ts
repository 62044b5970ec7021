/**
 * Nothing acknowledged is forgotten by a crash (docs/security.md#replay-window, docs/security.md#idempotency):
 * a real `m serve` on a temporary data directory accepts a JWE and an `Idempotency-Key`, is killed with
 * SIGKILL, restarts on the same directory, and then refuses the same JWE with 400 `replayed` and replays the
 * keyed answer instead of storing a second record.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SecurityClient } from '../../src/sdk/security';
import { ADMIN_PASSWORD, killAll, type ServeProcess, startServe } from './helpers/serve-process';

const temp = mkdtempSync(join(tmpdir(), 'fault-crash-replay-'));
const dataDir = join(temp, 'data');
const STRICT = { PLATFORM_ENCRYPTION_MODE: 'strict' };
const started: ServeProcess[] = [];

afterAll(async () => {
  for (const server of started) await server.stop();
  killAll(started.map((s) => s.child.pid!).filter(Boolean));
  rmSync(temp, { recursive: true, force: true });
});

async function serve(): Promise<ServeProcess> {
  const server = await startServe(dataDir, [], STRICT);
  started.push(server);
  return server;
}

/** Encrypts `body` for `path` with the SDK against `url` (a fresh client: the keys are read from the server). */
async function jwe(url: string, path: string, body: unknown): Promise<string> {
  const client = new SecurityClient({ baseUrl: url });
  const payload = await client.encryptPayload(body, `${url}${path}`, 'POST');
  expect(payload.contentType).toBe('application/jose');
  return payload.body;
}

/** Signs in as Administrator with an encrypted body (strict mode): the headers of a cookie session. */
async function signIn(url: string): Promise<Record<string, string>> {
  const body = await jwe(url, '/api/method/login', { usr: 'Administrator', pwd: ADMIN_PASSWORD });
  const res = await fetch(`${url}/api/method/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/jose', origin: url },
    body,
  });
  expect(res.status).toBe(200);
  const { csrf_token } = (await res.json()) as { csrf_token: string };
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, 'x-csrf-token': csrf_token };
}

function post(
  url: string,
  session: Record<string, string>,
  body: string,
  extra: Record<string, string> = {},
) {
  return fetch(`${url}/api/resource/crm.Lead`, {
    method: 'POST',
    headers: { ...session, origin: url, 'content-type': 'application/jose', ...extra },
    body,
  });
}

async function leadsNamed(url: string, session: Record<string, string>, name: string): Promise<number> {
  const res = await fetch(`${url}/api/resource/crm.Lead?limit=500&fields=["lead_name"]`, {
    headers: { cookie: session.cookie! },
  });
  expect(res.status).toBe(200);
  const { data } = (await res.json()) as { data: { lead_name: string }[] };
  return data.filter((row) => row.lead_name === name).length;
}

describe('a SIGKILLed m serve keeps its replay window and idempotency records', () => {
  it('refuses the same JWE with 400 replayed and replays the same Idempotency-Key after a restart', async () => {
    const first = await serve();
    const session = await signIn(first.url);
    const once = await jwe(first.url, '/api/resource/crm.Lead', {
      lead_name: 'Sent once',
      source: 'Website',
    });
    expect((await post(first.url, session, once)).status).toBe(201);
    const keyed = { lead_name: 'Keyed once', source: 'Website' };
    const created = await post(first.url, session, await jwe(first.url, '/api/resource/crm.Lead', keyed), {
      'idempotency-key': 'crash-key-1',
    });
    expect(created.status).toBe(201);
    const createdBody = await created.text();

    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    expect(first.child.signalCode).toBe('SIGKILL');

    const second = await serve();
    const replayed = await post(second.url, session, once);
    expect(replayed.status).toBe(400);
    expect(((await replayed.json()) as { error: { code: string } }).error.code).toBe('replayed');

    // A retry encrypts again (a new jti): the key, stored in the database, replays the first answer.
    const retry = await post(second.url, session, await jwe(second.url, '/api/resource/crm.Lead', keyed), {
      'idempotency-key': 'crash-key-1',
    });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.text()).toBe(createdBody);

    expect(await leadsNamed(second.url, session, 'Sent once')).toBe(1);
    expect(await leadsNamed(second.url, session, 'Keyed once')).toBe(1);
  });
});
