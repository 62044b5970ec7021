import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMINISTRATOR } from '../../backend/auth/auth-service';
import { countRecords } from '../../backend/data/record-count';
import { ROOT_DIR } from '../../backend/roots/context';
import { type RunningServer, startServer } from '../../backend/server';
import { benchmarkCli } from '../../src/benchmarks/cli';
import { EXIT } from '../../src/benchmarks/exit-codes';
import type { LoadResult } from '../../src/benchmarks/report/result';
import { apiKeyAuthorization } from '../helpers/auth';
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
  // The manifests' apiUrl and metaUrl are built from the public URL: it must be the served address.
  const port = await freePort();
  app = await createTestApp({
    config: {
      'server.public_url': `http://127.0.0.1:${port}`,
      'security.payload_encryption.mode': 'metadata',
      'security.rate_limit.max_requests': 100_000,
    },
  });
  server = await startServer(app.app, { host: '127.0.0.1', port });
  const apiKey = (await apiKeyAuthorization(app.ctx)).replace(/^token /, '');
  const [key, secret] = apiKey.split(':');
  env = {
    LOAD_PASSWORD: 'admin',
    LOAD_API_KEY: key!,
    LOAD_API_SECRET: secret!,
    LOAD_TOKEN: await app.ctx.security.auth.issueToken(ADMINISTRATOR, 600_000),
  };
  // The custom auth factory of the example reads its token from the process environment.
  process.env.LOAD_FACTORY_TOKEN = env.LOAD_TOKEN;
  process.env.LOAD_API_KEY = key;
  process.env.LOAD_API_SECRET = secret;
});

afterAll(async () => {
  delete process.env.LOAD_FACTORY_TOKEN;
  delete process.env.LOAD_API_KEY;
  delete process.env.LOAD_API_SECRET;
  await server?.close();
  await app?.close();
});

async function runFile(path: string, args: string[] = []) {
  const outDir = tempDir('load-real-');
  let out = '';
  let err = '';
  const io = { out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (err += s) } };
  const code = await benchmarkCli(['--config', path, '--out', outDir, ...args], io, env);
  const result = JSON.parse(readFileSync(join(outDir, 'result.json'), 'utf8')) as LoadResult;
  return { code, out, err, result };
}

const run = (yaml: string, files: Record<string, string> = {}) => runFile(writeConfig(yaml, files));

const byLabel = (r: LoadResult, label: string) => r.scenarios.find((s) => s.label === label)!;

describe('the harness against the real backend (metadata-mode encryption on)', () => {
  it('runs doctype, rpc and endpoint scenarios with every auth mode and passes with no failure', async () => {
    const before = await countRecords(app.ctx.db, 'crm.Customer');
    const { code, out, result } = await run(
      `target_url: ${server.url}
auth: { mode: session, username: Administrator, password: "\${LOAD_PASSWORD}" }
users: { peak: 3, think_time_seconds: 0.02 }
duration_seconds: 2
thresholds: { p95_ms: 600000 }
generator: { max_event_loop_lag_ms: 60000 }
targets:
  - type: doctype
    name: crm.Customer
    mix: { read: 2, create: 2, update: 1, delete: 1 }
    payload_overrides: { status: Prospect }
  - type: doctype
    name: stock.Item
    mix: { create: 1, read: 1 }
    auth: { mode: api_key, header_name: Authorization, key: "token \${LOAD_API_KEY}:\${LOAD_API_SECRET}" }
  - type: rpc
    name: customer-count
    method: crm.api.customer_count
    kwargs: { status: Prospect }
    auth: { mode: bearer, token: "\${LOAD_TOKEN}" }
  - type: endpoint
    name: whoami
    method: GET
    path: /api/method/platform.auth.whoami
    auth: { mode: custom, factory: ./auth.ts#headers }
  - type: endpoint
    name: security-config
    method: GET
    path: /api/v1/security/config
    auth: { mode: none }
`,
      {
        'auth.ts': `export function headers() { return { Authorization: 'Bearer ' + process.env.LOAD_FACTORY_TOKEN }; }\n`,
      },
    );
    const statuses = JSON.stringify(result.scenarios.map((s) => [s.label, s.statuses]));
    expect(result.total.failed, statuses).toBe(0);
    expect(result.total.errors, out).toBe(0);
    expect(result.config.encryptionMode).toBe('metadata');
    for (const label of ['crm.Customer', 'stock.Item', 'customer-count', 'whoami', 'security-config']) {
      expect(byLabel(result, label).ok, label).toBeGreaterThan(0);
    }
    expect(await countRecords(app.ctx.db, 'crm.Customer')).toBeGreaterThan(before);
    expect(await countRecords(app.ctx.db, 'crm.Customer', { status: 'Prospect' })).toBeGreaterThan(0);
    expect(code).toBe(EXIT.pass);
  });

  it('counts requests the target refuses (401 without credentials) as failures, not as throttled', async () => {
    const { result } = await run(`target_url: ${server.url}
auth: { mode: none }
users: { peak: 2 }
duration_seconds: 1
targets:
  - type: rpc
    name: anonymous
    method: crm.api.ping
    expect_status: [200]
`);
    // Anonymous RPC is refused (401): failures, never throttled.
    expect(result.total.failed).toBe(result.total.count);
    expect(result.total.throttled).toBe(0);
    expect(result.verdict.checks).toContainEqual(
      expect.objectContaining({ scope: 'total', metric: 'error_rate', passed: false }),
    );
  });
});

describe('examples/load against the real backend', () => {
  const examples = [
    'crm-session',
    'stock-api-key',
    'endpoints-bearer',
    'public-none',
    'custom-factory',
    'customer-flow',
  ];
  // customer-flow's users ramp up from none over its first stage, so in 2 s a single user starts, and on a
  // busy machine its first iteration (four requests with think times) may not finish before the run ends.
  const seconds: Record<string, string> = { 'customer-flow': '6' };
  for (const name of examples) {
    it(`${name}.yaml runs without a failure`, async () => {
      const path = join(ROOT_DIR, 'examples', 'load', `${name}.yaml`);
      const { result, err } = await runFile(path, [
        '--target-url',
        server.url,
        '--users',
        '4',
        '--duration',
        seconds[name] ?? '2',
      ]);
      const statuses = JSON.stringify(result.scenarios.map((s) => [s.label, s.statuses]));
      expect(result.total.ok, `${err}\n${statuses}`).toBeGreaterThan(0);
      expect(result.total.failed + result.total.errors, statuses).toBe(0);
    });
  }
});

describe('the harness against the real rate limiter', () => {
  let limited: TestApp;
  let limitedServer: RunningServer;

  beforeAll(async () => {
    limited = await createTestApp({ config: { 'security.rate_limit.max_requests': 20 } });
    limitedServer = await startServer(limited.app, { host: '127.0.0.1', port: 0 });
  });

  afterAll(async () => {
    await limitedServer?.close();
    await limited?.close();
  });

  it('counts the 429s of RateLimitMiddleware apart, outside the error rate', async () => {
    const token = await limited.ctx.security.auth.issueToken(ADMINISTRATOR, 600_000);
    const outDir = tempDir('load-real-');
    const path = writeConfig(`target_url: ${limitedServer.url}
auth: { mode: bearer, token: "\${LOAD_TOKEN}" }
users: { peak: 2, think_time_seconds: 0.01 }
duration_seconds: 1
generator: { max_event_loop_lag_ms: 60000 }
thresholds: { p95_ms: 600000 }
targets:
  - { type: endpoint, name: whoami, method: GET, path: /api/method/platform.auth.whoami }
`);
    const io = { out: { write: () => true }, err: { write: () => true } };
    const code = await benchmarkCli(['--config', path, '--out', outDir], io, { LOAD_TOKEN: token });
    const result = JSON.parse(readFileSync(join(outDir, 'result.json'), 'utf8')) as LoadResult;
    // 20 requests per window per credential: the rest are 429s, excluded from the error rate.
    expect(result.total.ok).toBe(20);
    expect(result.total.throttled).toBe(result.total.count - 20);
    expect(result.total.statuses['429']).toBe(result.total.throttled);
    expect(result.total.errorRate).toBe(0);
    expect(code).toBe(EXIT.pass);
  });
});
