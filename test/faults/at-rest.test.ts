import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../backend/audit/audit-log';
import { openDatabase } from '../../backend/db/open-database';
import { filesContaining } from './helpers/leak-search';
import { type ServeProcess, signIn, spawnM, startServe } from './helpers/serve-process';

// One real `m serve` (MONOLITH, PGlite) on a fresh data directory: a Customer with a known email and phone
// is created (with an Idempotency-Key, so its answer is kept) and read through the API, then the server is stopped and every file of the data directory
// (tables, WAL, keys) is searched for those bytes. The customer's name, stored in clear, is searched too:
// finding it proves the search would find a value stored in clear. A third reveal is answered and the server
// killed at once: its audit entry is still there. Then the audit chain is verified, an entry is deleted
// behind the log's back, and verification fails naming it.
const temp = mkdtempSync(join(tmpdir(), 'fault-at-rest-'));
const dataDir = join(temp, 'data');
const marker = randomBytes(6).toString('hex');
const email = `at-rest-${marker}@example.com`;
const phone = `+44 20 7946 ${marker.slice(0, 4).replace(/[a-f]/g, '7')}`;
const clearName = `Clear Name ${marker}`;
// Plain JSON requests, so the test can send the email itself (payload encryption is the wire's business).
const ENV = { PLATFORM_ENCRYPTION_MODE: 'disabled' };
let server: ServeProcess;
let authorization: string;
let customer: string;

beforeAll(async () => {
  server = await startServe(dataDir, [], ENV);
  const session = await signIn(server.url);
  const key = await fetch(`${server.url}/api/method/platform.auth.generate_api_key`, {
    method: 'POST',
    headers: { ...session, 'content-type': 'application/json' },
    body: '{}',
  });
  const { api_key, api_secret } = ((await key.json()) as { message: { api_key: string; api_secret: string } })
    .message;
  authorization = `token ${api_key}:${api_secret}`;
});
afterAll(async () => {
  await server.stop();
  rmSync(temp, { recursive: true, force: true });
});

describe('personal data at rest, on a real server', () => {
  it('creates, reveals to an administrator and finds by exact email', async () => {
    const created = await fetch(`${server.url}/api/resource/crm.Customer`, {
      method: 'POST',
      // With an Idempotency-Key, the answer (the email and phone in clear, for an administrator) is kept for
      // a retry: the search below covers that row too.
      headers: { authorization, 'content-type': 'application/json', 'idempotency-key': `create-${marker}` },
      body: JSON.stringify({ customer_name: clearName, email, phone }),
    });
    expect(created.status).toBe(201);
    customer = ((await created.json()) as { data: { name: string } }).data.name;
    const read = await fetch(`${server.url}/api/resource/crm.Customer/${customer}`, {
      headers: { authorization },
    });
    expect(((await read.json()) as { data: { email: string } }).data.email).toBe(email);
    const filters = encodeURIComponent(JSON.stringify([['email', '=', email]]));
    const found = await fetch(`${server.url}/api/resource/crm.Customer?filters=${filters}`, {
      headers: { authorization },
    });
    expect(((await found.json()) as { data: { name: string }[] }).data.map((r) => r.name)).toEqual([
      customer,
    ]);
  });

  it('audited both reveals with the user, route and client address', async () => {
    const res = await fetch(`${server.url}/api/audit?record=${customer}`, { headers: { authorization } });
    const { data } = (await res.json()) as { data: Record<string, unknown>[] };
    expect(data.map((e) => [e.seq, e.user, e.via, e.route, e.client_address, e.fields])).toEqual([
      [1, 'Administrator', 'api_key', 'get', '127.0.0.1', ['email', 'phone']],
      [2, 'Administrator', 'api_key', 'list', '127.0.0.1', ['email', 'phone']],
    ]);
  });

  it('lets m audit verify --url check the running server’s chain', async () => {
    const verify = spawnM(['audit', 'verify', '--url', server.url], {
      PLATFORM_API_KEY: authorization.slice('token '.length),
    });
    expect(await verify.exited).toBe(0);
    expect(verify.output()).toMatch(/audit log intact: 2 entries; head 2 [0-9a-f]{64}/);
  });

  it('keeps the entry of a reveal answered just before the server is killed (kill -9)', async () => {
    const read = await fetch(`${server.url}/api/resource/crm.Customer/${customer}`, {
      headers: { authorization },
    });
    expect(((await read.json()) as { data: { email: string } }).data.email).toBe(email);
    server.child.kill('SIGKILL');
    await server.exited;
    // Loaded into the table in a batch after the answer, if at all before the kill: the journal holds it.
    const db = await openDatabase({ dataDir });
    try {
      const log = await AuditLog.open(db);
      const { data } = await log.list({ record: customer });
      await log.close();
      expect(data.map((e) => [e.seq, e.route])).toEqual([
        [1, 'get'],
        [2, 'list'],
        [3, 'get'],
      ]);
    } finally {
      await db.close();
    }
  });

  it('leaves no byte of the email or phone in any file of the stopped server’s data directory', async () => {
    expect(await filesContaining(dataDir, clearName)).not.toEqual([]);
    expect(await filesContaining(dataDir, email)).toEqual([]);
    expect(await filesContaining(dataDir, phone)).toEqual([]);
  });

  it('verifies the chain offline, and names the entry after one deleted behind its back', async () => {
    const intact = spawnM(['audit', 'verify', '--data-dir', dataDir]);
    expect(await intact.exited).toBe(0);
    expect(intact.output()).toContain('audit log intact: 3 entries');

    const db = await openDatabase({ dataDir });
    try {
      await db.exec('ALTER TABLE audit_log DISABLE TRIGGER USER; DELETE FROM audit_log WHERE seq = 1;');
    } finally {
      await db.close();
    }
    const broken = spawnM(['audit', 'verify', '--data-dir', dataDir]);
    expect(await broken.exited).toBe(1);
    expect(broken.output()).toContain('audit log BROKEN at entry 1: entry 1 is missing (the next one is 2)');
  });
});
