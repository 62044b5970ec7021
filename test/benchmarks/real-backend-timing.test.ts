/**
 * `server_timing: true` against the real app on a port: every request of the load asks for Server-Timing,
 * result.json gets each scenario's server stages with one count per response (over two generator threads
 * too, and per flow step), the summary and the report show them; a caller who is not a System Manager gets none and the report says so; a plan that does not
 * ask sends no such header.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMINISTRATOR } from '../../backend/auth/auth-service';
import { type RunningServer, startServer } from '../../backend/server';
import { benchmarkCli } from '../../src/benchmarks/cli';
import type { LoadResult } from '../../src/benchmarks/report/result';
import { launchChromium, screenshot } from '../e2e/support/browser';
import { userWithRoles } from '../helpers/roles';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { tempDir, writeConfig } from './helpers/runtime';

let app: TestApp;
let server: RunningServer;
let env: Record<string, string>;
/** `X-Platform-Timing` of every request the server received for the scenarios' data API (null: absent). */
let asked: Array<string | null>;

const PATH = '/api/resource/stock.Item';

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
      'security.rate_limit.max_requests': 100_000,
    },
  });
  server = await startServer(
    {
      fetch(req, bindings) {
        if (new URL(req.url).pathname.startsWith('/api/resource/'))
          asked.push(req.headers.get('x-platform-timing'));
        return app.app.fetch(req, bindings);
      },
    },
    { host: '127.0.0.1', port },
  );
  env = {
    LOAD_TOKEN: await app.ctx.security.auth.issueToken(ADMINISTRATOR, 600_000),
    STOCK_KEY: await userWithRoles(app.ctx, 'stock-load-timing', ['Stock User']),
  };
});

afterAll(async () => {
  await server?.close();
  await app?.close();
});

beforeEach(() => {
  asked = [];
});

async function run(yaml: string) {
  const outDir = tempDir('load-timing-');
  let out = '';
  const io = { out: { write: (s: string) => (out += s) }, err: { write: () => {} } };
  const code = await benchmarkCli(['--config', writeConfig(yaml), '--out', outDir], io, env);
  const result = JSON.parse(readFileSync(join(outDir, 'result.json'), 'utf8')) as LoadResult;
  const html = readFileSync(join(outDir, 'report.html'), 'utf8');
  return { code, out, result, html, outDir };
}

const plan = (auth: string, serverTiming: string) => `target_url: ${server.url}
auth: ${auth}
${serverTiming}
users: { peak: 2, think_time_seconds: 0.02 }
duration_seconds: 1
generator: { max_event_loop_lag_ms: 60000 }
thresholds: { p95_ms: 600000 }
targets:
  - { type: endpoint, name: items, method: GET, path: ${PATH} }
`;

/** A second scenario, so the report draws a bar for each. */
const CUSTOMERS = '  - { type: endpoint, name: customers, method: GET, path: /api/resource/crm.Customer }\n';

const ADMIN = `{ mode: bearer, token: "\${LOAD_TOKEN}" }`;

describe('server_timing against the real backend', () => {
  it("asks on every request and reports each scenario's stages, one count per response", async () => {
    const { result, out, html, outDir } = await run(plan(ADMIN, 'server_timing: true') + CUSTOMERS);
    const [s, customers] = result.scenarios;
    expect(s!.ok).toBeGreaterThan(0);
    expect(customers!.ok).toBeGreaterThan(0);
    expect(asked.length).toBeGreaterThanOrEqual(s!.count + customers!.count);
    expect(asked.every((v) => v === '1')).toBe(true);
    expect(result.config.serverTiming).toBe(true);
    expect(customers!.serverTiming?.db?.count).toBe(customers!.count);
    const stages = s!.serverTiming!;
    expect(Object.keys(stages)).toEqual([
      'host',
      'target',
      'ratelimit',
      'body',
      'decrypt',
      'csrf',
      'idempotency',
      'auth',
      'perm',
      'db',
      'app',
      'total',
    ]);
    for (const m of Object.values(stages)) {
      expect(m.count).toBe(s!.count);
      expect(m.meanMs).toBeGreaterThanOrEqual(0);
    }
    expect(stages.total!.meanMs).toBeGreaterThan(0);
    expect(out).toMatch(
      new RegExp(
        `server stages: items: host [\\d.]+, .*db [\\d.]+, app [\\d.]+, total [\\d.]+ ms mean \\(${s!.count} responses\\)`,
      ),
    );
    expect(html).toContain('<h2>Server stages</h2>');
    expect(html).toContain('aria-label="Where the server spent its time"');
    expect(html).toMatch(/<title>db: [\d.]+ ms<\/title>/);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(`file://${join(outDir, 'report.html')}`);
      // One bar per scenario, a segment per stage but the total, as wide as the page allows.
      const bar = page.locator('svg[aria-label="Where the server spent its time"]');
      expect(await bar.locator('rect[height="28"]').count()).toBe(22);
      expect((await bar.boundingBox())!.width).toBeGreaterThan(520);
      await screenshot(page, 'load-report-server-stages');
    } finally {
      await browser.close();
    }
  });

  it('adds the stages of two generator threads together, one count per response', async () => {
    const yaml = plan(ADMIN, 'server_timing: true').replace(
      'generator: { max_event_loop_lag_ms: 60000 }',
      'generator: { workers: 2, max_event_loop_lag_ms: 60000 }',
    );
    const { result } = await run(yaml);
    const s = result.scenarios[0]!;
    expect(result.config.workers).toBe(2);
    expect(s.ok).toBeGreaterThan(1);
    expect(s.serverTiming?.db?.count).toBe(s.count);
    expect(s.serverTiming?.total?.count).toBe(s.count);
  });

  it("gives a flow's steps their own stages and the flow every request's", async () => {
    const yaml = plan(ADMIN, 'server_timing: true').replace(
      /targets:[\s\S]*$/,
      `targets:
  - type: flow
    name: browse
    steps:
      - { type: endpoint, name: items, method: GET, path: ${PATH} }
      - { type: endpoint, name: customers, method: GET, path: /api/resource/crm.Customer }
`,
    );
    const { result } = await run(yaml);
    const flow = result.scenarios[0]!;
    const [items, customers] = flow.steps!;
    expect(items!.count).toBeGreaterThan(0);
    expect(items!.serverTiming?.db?.count).toBe(items!.count);
    expect(customers!.serverTiming?.db?.count).toBe(customers!.count);
    expect(flow.serverTiming?.total?.count).toBe(items!.count + customers!.count);
  });

  it('says the server sent no Server-Timing when the credentials are not a System Manager', async () => {
    const { result, out, html } = await run(
      plan(`{ mode: api_key, key: "\${STOCK_KEY}" }`, 'server_timing: true'),
    );
    const s = result.scenarios[0]!;
    expect(s.ok).toBeGreaterThan(0);
    expect(asked.every((v) => v === '1')).toBe(true);
    expect(s.serverTiming).toBeUndefined();
    expect(out).toContain(
      'server stages: the server sent no Server-Timing (it is sent to System Managers only)',
    );
    expect(html).toContain('The server sent no Server-Timing (it is sent to System Managers only).');
    expect(html).not.toContain('Where the server spent its time');
  });

  it('asks for nothing when the plan does not say server_timing', async () => {
    const { result, out, html } = await run(plan(ADMIN, ''));
    const s = result.scenarios[0]!;
    expect(s.ok).toBeGreaterThan(0);
    expect(asked.length).toBeGreaterThanOrEqual(s.count);
    expect(asked.every((v) => v === null)).toBe(true);
    expect(s.serverTiming).toBeUndefined();
    expect(result.config.serverTiming).toBeUndefined();
    expect(out).not.toContain('server stages');
    expect(html).not.toContain('Server stages');
  });
});
