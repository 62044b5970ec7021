/**
 * `m audit verify --head` (docs/operators.md#the-audit-log) run as the document tells: against a stopped
 * server's data directory (`--data-dir`), a running MONOLITH server (`--url`) and a MACROSERVICE gateway's
 * merged log (`--url`, `--head <service>/<seq>:<hash>`). Each time the head printed by one check is recorded,
 * then the database's owner rewrites the log (triggers off, an entry deleted, the rest renumbered and
 * re-hashed with the same SHA-256): the check without the head still says intact, with it the log is BROKEN.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../backend/audit/audit-log';
import { type AuditEntry, type AuditFacts, GENESIS_HASH } from '../../backend/audit/chain';
import type { Database } from '../../backend/db/database';
import { openDatabase } from '../../backend/db/open-database';
import { spawnM } from '../faults/helpers/serve-process';
import { gatewayRequest, MacroserviceDeployment, type StartedDeployment } from '../helpers/macroservice';
import { createTestApp, type TestApp } from '../helpers/test-app';

/** `m <args>`, as `node bin/m.js`: its exit code and what it wrote. */
async function m(args: string[], env: Record<string, string> = {}) {
  const run = spawnM(args, env);
  return { code: await run.exited, output: run.output() };
}

/** The `<seq>:<hash>` to record from the line `audit log intact: <n> entries; head <seq> <hash>`. */
function printedHead(output: string): string {
  const match = /audit log intact: \d+ entries; head (\d+) ([0-9a-f]{64})$/m.exec(output);
  if (!match) throw new Error(`no head printed: ${output}`);
  return `${match[1]}:${match[2]}`;
}

/** The attack, as the table's owner: triggers off, `victim` deleted, the rest renumbered and re-hashed. */
async function rewriteTable(db: Pick<Database, 'exec' | 'query'>, victim: number): Promise<void> {
  const { rows } = await db.query<AuditEntry & { seq: string | number; at: Date | string }>(
    'SELECT seq, at, "user", via, doctype, record, fields, route, client_address FROM audit_log ORDER BY seq',
  );
  await db.exec('ALTER TABLE audit_log DISABLE TRIGGER USER');
  try {
    await db.exec('DELETE FROM audit_log');
    let prev = GENESIS_HASH;
    let seq = 0;
    for (const row of rows) {
      if (Number(row.seq) === victim) continue;
      seq++;
      const at = new Date(row.at).toISOString();
      const { user, via, doctype, record, route, client_address } = row;
      const fields = [seq, at, user, via, doctype, record, row.fields, route, client_address];
      // No key: the same SHA-256 anyone reading backend/audit/chain.ts computes.
      const hash = createHash('sha256')
        .update(`${prev}\n${JSON.stringify(fields)}`)
        .digest('hex');
      await db.query(
        'INSERT INTO audit_log (seq, at, "user", via, doctype, record, fields, route, client_address, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11)',
        [seq, at, user, via, doctype, record, JSON.stringify(row.fields), route, client_address, prev, hash],
      );
      prev = hash;
    }
  } finally {
    await db.exec('ALTER TABLE audit_log ENABLE TRIGGER USER');
  }
}

/** Serves `app` on a free port of 127.0.0.1. */
async function listen(app: { fetch: (req: Request) => Response | Promise<Response> }) {
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return { url, close };
}

const facts = (n: number): AuditFacts[] =>
  Array.from({ length: n }, (_, i) => ({
    at: new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString(),
    user: `user${i}`,
    via: 'session',
    doctype: 'crm.Customer',
    record: 'CUST-1',
    fields: ['email'],
    route: 'get',
    client_address: '127.0.0.1',
  }));

describe('m audit verify --data-dir .platform --head <seq>:<hash>', () => {
  const temp = mkdtempSync(join(tmpdir(), 'audit-verify-head-'));
  const dataDir = join(temp, 'data');
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  beforeAll(async () => {
    const db = await openDatabase({ dataDir });
    try {
      const log = await AuditLog.open(db);
      await log.append(facts(5));
      await log.close();
    } finally {
      await db.close();
    }
  });

  it('refuses a directory that holds no database instead of finding an empty chain intact', async () => {
    const missing = join(dataDir, 'no-such-dir');
    const run = await m(['audit', 'verify', '--data-dir', missing]);
    expect(run.code).toBe(1);
    expect(run.output).toContain(`${missing} holds no database`);
    expect(run.output).not.toContain('audit log intact');
    expect(existsSync(missing)).toBe(false);
  });

  it('refuses a head in another form as a usage error', async () => {
    const run = await m(['audit', 'verify', '--data-dir', dataDir, '--head', '5']);
    expect(run.code).toBe(2);
    expect(run.output).toContain('--head 5: expected <seq>:<hash> or <service>/<seq>:<hash>');
  });

  it("refuses a head naming a service, which a gateway's merged log takes, as a usage error, not a BROKEN log", async () => {
    const first = await m(['audit', 'verify', '--data-dir', dataDir]);
    const head = `crm/${printedHead(first.output)}`;
    const run = await m(['audit', 'verify', '--data-dir', dataDir, '--head', head]);
    expect(run.code).toBe(2);
    expect(run.output).toContain(
      `m audit: --head: the head recorded (${head}) names a service, and this log is one chain (its entries name none): pass <seq>:<hash>`,
    );
    expect(run.output).not.toContain('BROKEN');
  });

  it('holds against the head it printed, and fails against it once the log is rewritten', async () => {
    const first = await m(['audit', 'verify', '--data-dir', dataDir]);
    expect(first.code).toBe(0);
    const head = printedHead(first.output);
    expect(head).toMatch(/^5:/);
    const again = await m(['audit', 'verify', '--data-dir', dataDir, '--head', head]);
    expect(again).toEqual({ code: 0, output: first.output });

    const db = await openDatabase({ dataDir });
    try {
      await rewriteTable(db, 2);
    } finally {
      await db.close();
    }
    const unaware = await m(['audit', 'verify', '--data-dir', dataDir]);
    expect(unaware.code).toBe(0);
    expect(unaware.output).toContain('audit log intact: 4 entries; head 4 ');

    const compared = await m(['audit', 'verify', '--data-dir', dataDir, '--head', head]);
    expect(compared.code).toBe(1);
    expect(compared.output).toContain(
      `audit log BROKEN at entry 5: entry 5 does not match the head recorded (${head}): the log ends at entry 4; the log was rewritten, or cut, since`,
    );
  });
});

describe('PLATFORM_API_KEY=<api_key>:<api_secret> m audit verify --url <server> --head <seq>:<hash>', () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof listen>>;
  let apiKey: string;

  beforeAll(async () => {
    t = await createTestApp();
    server = await listen(t.app);
    const { api_key, api_secret } = await t.ctx.security.auth.generateApiKey('Administrator');
    apiKey = `${api_key}:${api_secret}`;
    const created = await t.request('POST', '/api/resource/crm.Customer', {
      body: { customer_name: 'Ada', email: 'ada.verify-head-cli@example.com' },
    });
    const { name } = ((await created.json()) as { data: { name: string } }).data;
    for (let i = 0; i < 4; i++) {
      expect((await t.request('GET', `/api/resource/crm.Customer/${name}`)).status).toBe(200);
    }
  });
  afterAll(async () => {
    await server?.close();
    await t?.close();
  });

  it('holds against the head it printed, and fails against it once the log is rewritten', async () => {
    const first = await m(['audit', 'verify', '--url', server.url], { PLATFORM_API_KEY: apiKey });
    expect(first.code).toBe(0);
    const head = printedHead(first.output);
    const [seq] = head.split(':');
    expect(
      (await m(['audit', 'verify', '--url', server.url, '--head', head], { PLATFORM_API_KEY: apiKey })).code,
    ).toBe(0);

    await rewriteTable(t.ctx.db, 1);
    expect((await m(['audit', 'verify', '--url', server.url], { PLATFORM_API_KEY: apiKey })).code).toBe(0);
    const compared = await m(['audit', 'verify', '--url', server.url, '--head', head], {
      PLATFORM_API_KEY: apiKey,
    });
    expect(compared.code).toBe(1);
    expect(compared.output).toContain(
      `audit log BROKEN at entry ${seq}: entry ${seq} does not match the head recorded (${head})`,
    );
  });
});

describe('m audit verify --url <a port nothing listens on>', () => {
  it('exits 1 naming the address and the reason, not only "fetch failed"', async () => {
    // A port taken and released: nothing listens on it any more.
    const probe = await listen({ fetch: () => new Response(null, { status: 204 }) });
    await probe.close();
    const run = await m(['audit', 'verify', '--url', probe.url], { PLATFORM_API_KEY: 'key:secret' });
    expect(run.code).toBe(1);
    expect(run.output).toContain(`cannot reach ${probe.url}: ECONNREFUSED`);
  });
});

describe('m audit verify --url <gateway> --head <service>/<seq>:<hash> (MACROSERVICE)', () => {
  const deployment = new MacroserviceDeployment('audit-verify-head-test-secret-0123456789abcdef');
  let started: StartedDeployment;
  let gateway: Awaited<ReturnType<typeof listen>>;
  let apiKey: string;

  beforeAll(async () => {
    started = await deployment.start({ apps: ['crm', 'stock'], tmpPrefix: 'audit-verify-head-gw-' });
    gateway = await listen(started.gateway.app);
    apiKey = started.admin.slice('token '.length);
    const created = await gatewayRequest(
      started.gateway,
      started.admin,
      'POST',
      '/api/resource/crm.Customer',
      { customer_name: 'Grace', email: 'grace.verify-head@example.com' },
    );
    expect(created.status).toBe(201);
    const { name } = ((await created.json()) as { data: { name: string } }).data;
    for (let i = 0; i < 3; i++) {
      const read = await gatewayRequest(
        started.gateway,
        started.admin,
        'GET',
        `/api/resource/crm.Customer/${name}`,
      );
      expect(read.status).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await gateway?.close();
    await deployment.close();
  });

  it('refuses GET /api/audit/verify?head= at the gateway (400 invalid_query) rather than ignore it', async () => {
    const res = await gatewayRequest(
      started.gateway,
      started.admin,
      'GET',
      `/api/audit/verify?head=crm/1:${'a'.repeat(64)}`,
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_query');
  });

  it("prints each service's head, holds against it, and fails against it once crm's log is rewritten", async () => {
    const first = await m(['audit', 'verify', '--url', gateway.url], { PLATFORM_API_KEY: apiKey });
    expect(first.code).toBe(0);
    const match = /^head (crm\/(\d+):[0-9a-f]{64})$/m.exec(first.output);
    if (!match) throw new Error(`no head of crm printed: ${first.output}`);
    const [, head, seq] = match;
    expect(
      (await m(['audit', 'verify', '--url', gateway.url, '--head', head!], { PLATFORM_API_KEY: apiKey }))
        .code,
    ).toBe(0);

    // The head without its service: a mistake in the command (exit 2), not a rewritten log.
    const bare = head!.slice('crm/'.length);
    const unnamed = await m(['audit', 'verify', '--url', gateway.url, '--head', bare], {
      PLATFORM_API_KEY: apiKey,
    });
    expect(unnamed.code).toBe(2);
    expect(unnamed.output).toContain(
      `m audit: --head: the head recorded (${bare}) names no service, and this log is a gateway's merged log`,
    );
    expect(unnamed.output).not.toContain('BROKEN');

    await rewriteTable(started.serviceDatabases.crm!, 1);
    expect((await m(['audit', 'verify', '--url', gateway.url], { PLATFORM_API_KEY: apiKey })).code).toBe(0);
    const compared = await m(['audit', 'verify', '--url', gateway.url, '--head', head!], {
      PLATFORM_API_KEY: apiKey,
    });
    expect(compared.code).toBe(1);
    expect(compared.output).toContain(
      `audit log BROKEN at entry ${seq}: crm: entry ${seq} does not match the head recorded (${head})`,
    );
  });
});
