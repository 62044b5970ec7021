/**
 * `m benchmark --watch-target` against the real app on a port: the run carries the server's own figures
 * into result.json, the summary and the report, and refuses to start without usable credentials.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMINISTRATOR } from '../../../backend/auth/auth-service';
import { type RunningServer, startServer } from '../../../backend/server';
import { benchmarkCli } from '../../../src/benchmarks/cli';
import { EXIT } from '../../../src/benchmarks/exit-codes';
import type { LoadResult } from '../../../src/benchmarks/report/result';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';
import { tempDir, writeConfig } from '../helpers/runtime';

let app: TestApp;
let server: RunningServer;
let token: string;

beforeAll(async () => {
  app = await createTestApp({ config: { 'security.rate_limit.max_requests': 100_000 } });
  server = await startServer(app.app, { host: '127.0.0.1', port: 0 });
  token = await app.ctx.security.auth.issueToken(ADMINISTRATOR, 600_000);
});
afterAll(async () => {
  await server?.close();
  await app?.close();
});

const yaml = () => `target_url: ${server.url}
auth: { mode: bearer, token: "\${LOAD_TOKEN}" }
users: { peak: 2 }
duration_seconds: 2
generator: { max_event_loop_lag_ms: 60000 }
targets: [{ type: endpoint, name: leads, method: GET, path: /api/resource/crm.Lead }]
`;

async function run(env: Record<string, string>) {
  const outDir = tempDir('watch-target-');
  let out = '';
  let err = '';
  const io = { out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (err += s) } };
  const code = await benchmarkCli(['--config', writeConfig(yaml()), '--out', outDir, '--watch-target'], io, {
    LOAD_TOKEN: token,
    ...env,
  });
  return { code, out, err, outDir };
}

describe('m benchmark --watch-target', () => {
  it("records the server's CPU, requests and statements with the load that caused them", async () => {
    const reader = await userWithRoles(app.ctx, 'scraper', ['Metrics Reader']);
    const { code, out, outDir } = await run({ PLATFORM_API_KEY: reader.replace(/^token /, '') });
    expect(code).toBe(EXIT.pass);
    const result = JSON.parse(readFileSync(join(outDir, 'result.json'), 'utf8')) as LoadResult;
    const watch = result.targetMetrics!;
    expect(watch.url).toBe(`${server.url}/metrics`);
    expect(watch.failedReadings).toBe(0);
    expect(watch.samples.length).toBeGreaterThan(0);
    // Every request the harness sent was answered by the target within the readings' span.
    expect(watch.requestsAnswered).toBeGreaterThanOrEqual(result.total.count);
    expect(watch.samples.some((s) => s.statementsPerSecond > 0)).toBe(true);
    expect(out).toMatch(
      /target \/metrics: CPU avg [\d.]+% max [\d.]+%, RSS max [\d.]+ MB, \d+ requests answered/,
    );
    const html = readFileSync(join(outDir, 'report.html'), 'utf8');
    for (const title of [
      'Server CPU (/metrics)',
      'Server requests and database statements',
      'Server background jobs',
    ]) {
      expect(html).toContain(title);
    }
  });

  it('is a usage error without PLATFORM_API_KEY, and a configuration error when the target refuses it', async () => {
    const missing = await run({});
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.err).toContain('--watch-target needs PLATFORM_API_KEY');
    const clerk = await userWithRoles(app.ctx, 'not.a.scraper', ['Sales User']);
    const refused = await run({ PLATFORM_API_KEY: clerk.replace(/^token /, '') });
    expect(refused.code).toBe(EXIT.invalidConfig);
    expect(refused.err).toContain('/metrics answered 403');
  });
});
