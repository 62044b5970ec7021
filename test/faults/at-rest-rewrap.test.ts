import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../backend/db/open-database';
import { type ServeProcess, signIn, spawnM, startServe, waitForOutput } from './helpers/serve-process';

// A rotation of the key-encryption key of personal data at rest on a real data directory: records written
// under key A, `m keys rewrap` to key B killed (SIGKILL) after its first batch, a server started with B
// (and A as the previous key) reading every record of the half-rewrapped database, the rewrap run again to
// the end, and a server with B alone reading every record.
const temp = mkdtempSync(join(tmpdir(), 'fault-rewrap-'));
const dataDir = join(temp, 'data');
const KEY_A = 'A'.repeat(40);
const KEY_B = 'B'.repeat(40);
const RECORDS = 600;
const UNDER_A = { PLATFORM_ENCRYPTION_MODE: 'disabled', PLATFORM_RECORDS_KEY_ENCRYPTION_KEY: KEY_A };
const ROTATING = {
  PLATFORM_ENCRYPTION_MODE: 'disabled',
  PLATFORM_RECORDS_KEY_ENCRYPTION_KEY: KEY_B,
  PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY: KEY_A,
};
const UNDER_B = { PLATFORM_ENCRYPTION_MODE: 'disabled', PLATFORM_RECORDS_KEY_ENCRYPTION_KEY: KEY_B };
const running = new Set<ServeProcess>();

async function serve(env: Record<string, string>): Promise<{ server: ServeProcess; authorization: string }> {
  const server = await startServe(dataDir, [], env);
  running.add(server);
  const session = await signIn(server.url);
  const res = await fetch(`${server.url}/api/method/platform.auth.generate_api_key`, {
    method: 'POST',
    headers: { ...session, 'content-type': 'application/json' },
    body: '{}',
  });
  const { api_key, api_secret } = ((await res.json()) as { message: { api_key: string; api_secret: string } })
    .message;
  return { server, authorization: `token ${api_key}:${api_secret}` };
}

/** Every customer's email as the API answers it to Administrator. */
async function emails(url: string, authorization: string): Promise<string[]> {
  const found: string[] = [];
  for (let start = 0; ; start += 500) {
    const res = await fetch(
      `${url}/api/resource/crm.Customer?fields=["email"]&limit_page_length=500&limit_start=${start}`,
      { headers: { authorization } },
    );
    expect(res.status).toBe(200);
    const page = ((await res.json()) as { data: { email: string }[] }).data;
    found.push(...page.map((r) => r.email));
    if (page.length < 500) return found.sort();
  }
}

/** How many stored emails each key-encryption key id wrapped (the server stopped). */
async function emailsByKey(): Promise<Map<string, number>> {
  const db = await openDatabase({ dataDir });
  try {
    const { rows } = await db.query<{ kek: string; n: number }>(
      "SELECT split_part(data->>'email', '.', 2) AS kek, count(*)::int AS n FROM records WHERE doctype = 'crm.Customer' GROUP BY 1",
    );
    return new Map(rows.map((r) => [r.kek, r.n]));
  } finally {
    await db.close();
  }
}

const expected = Array.from({ length: RECORDS }, (_, i) => `rewrap-${i}@example.com`).sort();

beforeAll(async () => {
  const { server, authorization } = await serve(UNDER_A);
  for (let i = 0; i < RECORDS; i += 20) {
    await Promise.all(
      Array.from({ length: 20 }, (_, j) =>
        fetch(`${server.url}/api/resource/crm.Customer`, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          body: JSON.stringify({ customer_name: `Rewrap ${i + j}`, email: `rewrap-${i + j}@example.com` }),
        }).then((r) => expect(r.status).toBe(201)),
      ),
    );
  }
  expect(await server.stop()).toBe(0);
});
afterAll(async () => {
  await Promise.all([...running].map((s) => s.stop()));
  rmSync(temp, { recursive: true, force: true });
});

describe('m keys rewrap', () => {
  it('is killed after its first batch and leaves a database half under each key', async () => {
    expect([...(await emailsByKey()).values()]).toEqual([RECORDS]);
    const rewrap = spawnM(['keys', 'rewrap', '--data-dir', dataDir, '--batch', '5'], ROTATING);
    await waitForOutput(rewrap, /crm\.Customer: 5 checked, 5 rewrapped/);
    rewrap.child.kill('SIGKILL');
    await rewrap.exited;
    expect(rewrap.output()).not.toContain('rewrap done');
    const byKey = await emailsByKey();
    expect(byKey.size).toBe(2);
    expect([...byKey.values()].reduce((a, b) => a + b)).toBe(RECORDS);
  });

  it('lets a server with the new key and the previous one read every record meanwhile', async () => {
    const { server, authorization } = await serve(ROTATING);
    expect(await emails(server.url, authorization)).toEqual(expected);
    const filters = encodeURIComponent(JSON.stringify([['email', '=', `rewrap-${RECORDS - 1}@example.com`]]));
    const found = await fetch(`${server.url}/api/resource/crm.Customer?filters=${filters}`, {
      headers: { authorization },
    });
    expect(((await found.json()) as { total: number }).total).toBe(1);
    expect(await server.stop()).toBe(0);
  });

  it('finishes when run again, after which the new key alone reads everything', async () => {
    const rewrap = spawnM(['keys', 'rewrap', '--data-dir', dataDir], ROTATING);
    expect(await rewrap.exited).toBe(0);
    expect(rewrap.output()).toMatch(/rewrap done: \d+ records rewritten/);
    expect([...(await emailsByKey()).values()]).toEqual([RECORDS]);
    const { server, authorization } = await serve(UNDER_B);
    expect(await emails(server.url, authorization)).toEqual(expected);
    expect(await server.stop()).toBe(0);
  });

  it('refuses a rotation naming no new key, or a key the data was not written with (exit 78)', async () => {
    const stored = readFileSync(join(dataDir, 'db', 'PG_VERSION'));
    // Only the previous key: rewrapping onto a key generated on the spot would strand the data.
    const previousOnly = spawnM(['keys', 'rewrap', '--data-dir', dataDir], {
      PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY: KEY_B,
    });
    expect(await previousOnly.exited).toBe(78);
    expect(previousOnly.output()).toContain('PLATFORM_RECORDS_KEY_ENCRYPTION_KEY is not');
    expect(existsSync(join(dataDir, 'keys', 'records.kek'))).toBe(false);
    // A mistyped key: the server does not start, and names the setting it was given.
    const mistyped = spawnM(['serve', '--port', '0', '--data-dir', dataDir], {
      ...UNDER_B,
      PLATFORM_RECORDS_KEY_ENCRYPTION_KEY: 'C'.repeat(40),
    });
    expect(await mistyped.exited).toBe(78);
    expect(mistyped.output()).toMatch(/not under PLATFORM_RECORDS_KEY_ENCRYPTION_KEY \([0-9a-f]{16}\)/);
    expect(readFileSync(join(dataDir, 'db', 'PG_VERSION'))).toEqual(stored);
    const { server, authorization } = await serve(UNDER_B);
    expect(await emails(server.url, authorization)).toEqual(expected);
    expect(await server.stop()).toBe(0);
  });
});

describe('moving off the generated key', () => {
  it('rewraps onto a configured key with the generated file named as the previous one', async () => {
    const generatedDir = join(temp, 'generated');
    const disabled = { PLATFORM_ENCRYPTION_MODE: 'disabled' };
    const first = await startServe(generatedDir, [], disabled);
    running.add(first);
    const session = await signIn(first.url);
    const created = await fetch(`${first.url}/api/resource/crm.Customer`, {
      method: 'POST',
      headers: { ...session, 'content-type': 'application/json' },
      body: JSON.stringify({ customer_name: 'Generated', email: 'generated@example.com' }),
    });
    expect(created.status).toBe(201);
    expect(await first.stop()).toBe(0);

    const generated = join(generatedDir, 'keys', 'records.kek');
    const rewrap = spawnM(['keys', 'rewrap', '--data-dir', generatedDir], {
      PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY_FILE: generated,
      PLATFORM_RECORDS_KEY_ENCRYPTION_KEY: KEY_B,
    });
    expect(await rewrap.exited).toBe(0);
    expect(rewrap.output()).toMatch(/rewrap done: 1 records rewritten/);
    rmSync(generated);

    const after = await startServe(generatedDir, [], {
      ...disabled,
      PLATFORM_RECORDS_KEY_ENCRYPTION_KEY: KEY_B,
    });
    running.add(after);
    const read = await fetch(`${after.url}/api/resource/crm.Customer?fields=["email"]`, {
      headers: await signIn(after.url),
    });
    const rows = ((await read.json()) as { data: { email: string }[] }).data;
    expect(rows.map((r) => r.email)).toEqual(['generated@example.com']);
    expect(await after.stop()).toBe(0);
  });
});
