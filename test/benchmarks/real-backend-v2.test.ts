import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMINISTRATOR } from '../../backend/auth/auth-service';
import { countRecords } from '../../backend/data/record-count';
import { type RunningServer, startServer } from '../../backend/server';
import { benchmarkCli } from '../../src/benchmarks/cli';
import { EXIT } from '../../src/benchmarks/exit-codes';
import type { LoadResult } from '../../src/benchmarks/report/result';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { tempDir, writeConfig } from './helpers/runtime';

let app: TestApp;
let server: RunningServer;
let env: Record<string, string>;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  const port = await freePort();
  app = await createTestApp({
    config: {
      'server.public_url': `http://127.0.0.1:${port}`,
      'security.payload_encryption.mode': 'metadata',
      'security.rate_limit.max_requests': 100_000,
    },
  });
  server = await startServer(app.app, { host: '127.0.0.1', port });
  env = { LOAD_TOKEN: await app.ctx.security.auth.issueToken(ADMINISTRATOR, 600_000) };
});

afterAll(async () => {
  await server?.close();
  await app?.close();
});

async function run(yaml: string, args: string[] = []) {
  const outDir = tempDir('load-v2-');
  let out = '';
  let err = '';
  const io = { out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (err += s) } };
  const code = await benchmarkCli(['--config', writeConfig(yaml), '--out', outDir, ...args], io, env);
  const result = JSON.parse(readFileSync(join(outDir, 'result.json'), 'utf8')) as LoadResult;
  return { code, out, err, result, outDir };
}

const HEAD = () => `target_url: ${server.url}
auth: { mode: bearer, token: "\${LOAD_TOKEN}" }
generator: { max_event_loop_lag_ms: 60000 }
`;

describe('checks against the real backend', () => {
  it('counts a failed check on a body field as a failure, per check, with its reason', async () => {
    const { result, out } = await run(`${HEAD()}users: { peak: 2, think_time_seconds: 0.02 }
duration_seconds: 1
thresholds: { p95_ms: 600000 }
targets:
  - type: endpoint
    name: security-config
    method: GET
    path: /api/v1/security/config
    expect:
      status: 200
      json:
        mode: strict
        kid: { exists: true }
      headers: { content-type: { matches: json } }
`);
    const s = result.scenarios[0]!;
    expect(s.count).toBeGreaterThan(0);
    // Every response is 200 with mode "metadata": the json check fails on each, the others pass.
    expect(s.failed).toBe(s.count);
    expect(s.statuses['200']).toBe(s.count);
    expect(s.checks).toEqual({
      'json mode equals "strict"': { failed: s.count, reason: 'mode: expected "strict", got "metadata"' },
    });
    expect(result.total.errorRate).toBe(1);
    expect(out).toContain(`check failed: security-config: json mode equals "strict": ${s.count} time(s)`);
    expect(readFileSync(join(result.config.path, '..', 'load.yaml'), 'utf8')).toContain('strict');
  });
});

describe('flows against the real backend', () => {
  it('creates a Customer, captures its name, reads and updates it; --cleanup deletes what it created', async () => {
    const before = await countRecords(app.ctx.db, 'crm.Customer');
    const { code, result, err } = await run(
      `${HEAD()}users: { peak: 2, think_time_seconds: 0.02 }
duration_seconds: 1
thresholds: { p95_ms: 600000 }
targets:
  - type: flow
    name: customer
    steps:
      - type: doctype
        name: create
        doctype: crm.Customer
        op: create
        payload_overrides: { status: Prospect }
        capture: { customer: { json: data.name } }
      - type: doctype
        name: read
        doctype: crm.Customer
        op: read
        id: "{{ vars.customer }}"
        expect: { json: { data.name: "{{ vars.customer }}", data.status: Prospect } }
      - type: doctype
        name: update
        doctype: crm.Customer
        op: update
        id: "{{ vars.customer }}"
        payload_overrides: { status: Inactive }
        expect: { json: { data.status: Inactive } }
`,
      ['--cleanup'],
    );
    const flow = result.scenarios[0]!;
    expect(flow.type).toBe('flow');
    expect(flow.count).toBeGreaterThan(0);
    expect(flow.failed + flow.errors, JSON.stringify(flow)).toBe(0);
    const [create, read, update] = flow.steps!;
    expect([create!.name, read!.name, update!.name]).toEqual(['create', 'read', 'update']);
    // Every finished iteration ran the three steps; the total counts iterations, not requests.
    expect(update!.ok).toBe(flow.ok);
    expect(create!.count).toBeGreaterThanOrEqual(update!.count);
    expect(result.total.count).toBe(flow.count);
    expect(err).toContain('warning: this run writes records into');
    expect(err).toContain('flow customer: create crm.Customer, update crm.Customer per iteration');
    // Everything created was deleted at the end.
    expect(result.cleanup).toMatchObject({
      requested: true,
      left: create!.ok,
      deleted: create!.ok,
      failed: [],
    });
    expect(await countRecords(app.ctx.db, 'crm.Customer')).toBe(before);
    expect(code).toBe(EXIT.pass);
  });

  it('ends an iteration at the failing step and names it', async () => {
    const { result } = await run(`${HEAD()}users: { peak: 1, think_time_seconds: 0.05 }
duration_seconds: 1
thresholds: { p95_ms: 600000 }
targets:
  - type: flow
    name: broken
    steps:
      - { type: doctype, name: missing, doctype: crm.Customer, op: read, id: CUST-NOPE-0 }
      - { type: rpc, name: never, method: crm.api.ping }
`);
    const flow = result.scenarios[0]!;
    expect(flow.failed).toBe(flow.count);
    expect(flow.checks?.['step missing']?.reason).toMatch(/^status in \[200\]: got 404/);
    expect(flow.steps![1]!.count).toBe(0);
  });
});

describe('thresholds with abort_on_fail against the real backend', () => {
  it('stops the run at the first breach after the grace period, writes its report and exits 8', async () => {
    const { code, result, outDir, out } = await run(`target_url: ${server.url}
auth: { mode: none }
users: { peak: 2, think_time_seconds: 0.02 }
duration_seconds: 60
thresholds: { p95_ms: 600000, error_rate: 0.01, abort_on_fail: true, abort_grace_seconds: 1 }
generator: { max_event_loop_lag_ms: 60000 }
targets:
  - { type: rpc, name: anonymous, method: crm.api.ping }
`);
    expect(code).toBe(EXIT.thresholdAborted);
    expect(result.verdict.status).toBe('aborted');
    expect(result.verdict.aborted).toMatchObject({
      atSecond: 1,
      check: { scope: 'total', metric: 'error_rate', passed: false },
    });
    expect(result.durationSeconds).toBeLessThan(60);
    expect(existsSync(join(outDir, 'report.html'))).toBe(true);
    expect(out).toContain('aborted at 1 s: total error_rate 1 (limit 0.01, abort_on_fail)');
  });
});
