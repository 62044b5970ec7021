/**
 * The load-test harness against the real backend as a user without permission (docs/permissions.md): its
 * session login keeps working, and the 403s of a forbidden scenario count as failures unless the scenario's
 * `expect_status` lists 403.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../../backend/server';
import { benchmarkCli } from '../../../src/benchmarks/cli';
import type { LoadResult } from '../../../src/benchmarks/report/result';
import { tempDir, writeConfig } from '../../benchmarks/helpers/runtime';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let app: TestApp;
let server: RunningServer;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  // The manifests' apiUrl is built from the public URL: it must be the served address.
  const port = await freePort();
  app = await createTestApp({
    config: {
      'server.public_url': `http://127.0.0.1:${port}`,
      'security.rate_limit.max_requests': 100_000,
    },
  });
  server = await startServer(app.app, { host: '127.0.0.1', port });
  await app.ctx.security.users.addUser('load.stock', 'load-stock-password', ['Stock User']);
});
afterAll(async () => {
  await server?.close();
  await app?.close();
});

async function run(expectStatus: string): Promise<LoadResult> {
  const outDir = tempDir('load-roles-');
  const path = writeConfig(`target_url: ${server.url}
auth: { mode: session, username: load.stock, password: "\${LOAD_PASSWORD}" }
users: { peak: 2, think_time_seconds: 0.02 }
duration_seconds: 1
thresholds: { p95_ms: 600000 }
generator: { max_event_loop_lag_ms: 60000 }
targets:
  - type: rpc
    name: crm-count
    method: crm.api.customer_count
    expect_status: ${expectStatus}
  - type: rpc
    name: stock-total
    method: stock.api.total_quantity
`);
  const io = { out: { write: () => true }, err: { write: () => true } };
  await benchmarkCli(['--config', path, '--out', outDir], io, { LOAD_PASSWORD: 'load-stock-password' });
  return JSON.parse(readFileSync(join(outDir, 'result.json'), 'utf8')) as LoadResult;
}

const scenario = (r: LoadResult, label: string) => r.scenarios.find((s) => s.label === label)!;

describe('the harness as a Stock User', () => {
  it('signs in by session; a crm RPC answers 403, counted as failures', async () => {
    const result = await run('[200]');
    const statuses = JSON.stringify(result.scenarios.map((s) => [s.label, s.statuses]));
    expect(scenario(result, 'stock-total').ok, statuses).toBeGreaterThan(0);
    const crm = scenario(result, 'crm-count');
    expect(crm.statuses['403']).toBeGreaterThan(0);
    expect(crm.failed).toBe(crm.statuses['403']);
    expect(result.total.errors).toBe(0);
  });

  it('counts the 403s as ok when expect_status lists 403', async () => {
    const crm = scenario(await run('[200, 403]'), 'crm-count');
    expect(crm.statuses['403']).toBeGreaterThan(0);
    expect(crm.failed).toBe(0);
    expect(crm.ok).toBe(crm.statuses['403']);
  });
});
