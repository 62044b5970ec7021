import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { benchmarkCli } from '../../../src/benchmarks/cli';
import { EXIT } from '../../../src/benchmarks/exit-codes';
import type { LoadResult } from '../../../src/benchmarks/report/result';
import { type Handler, type RecordingServer, startRecordingServer } from '../helpers/recording-server';
import { tempDir, writeConfig } from '../helpers/runtime';

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs the CLI, capturing its output. */
async function cli(args: string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const code = await benchmarkCli(
    args,
    { out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (err += s) } },
    env,
  );
  return { code, out, err };
}

/**
 * A one-endpoint config. Unless a test sets its own, the latency limit and the generator's delay limit are
 * far out of reach, so a busy machine cannot change the verdict a test expects.
 */
function endpointConfig(url: string, extra = '', scenario = '') {
  const limits = extra.includes('thresholds:') ? '' : 'thresholds: { p95_ms: 600000 }\n';
  return writeConfig(`target_url: ${url}
auth: { mode: none }
users: { peak: 2, think_time_seconds: 0.01 }
duration_seconds: 1
generator: { max_event_loop_lag_ms: 60000 }
${limits}targets:
  - type: endpoint
    name: hit
    method: GET
    path: /hit
${scenario}${extra}`);
}

async function run(handler: Handler, extra = '', scenario = '', args: string[] = []) {
  server = await startRecordingServer(handler);
  const outDir = tempDir('load-out-');
  const res = await cli(['--config', endpointConfig(server.url, extra, scenario), '--out', outDir, ...args]);
  const result = JSON.parse(readFileSync(join(outDir, 'result.json'), 'utf8')) as LoadResult;
  const hits = server.received.filter((r) => r.path === '/hit');
  return { ...res, result, hits, outDir };
}

describe('m benchmark', () => {
  it('passes (exit 0) and writes a schema-versioned result and an HTML report counting every request sent', async () => {
    const { code, out, result, hits, outDir } = await run(() => undefined);
    expect(code).toBe(EXIT.pass);
    expect(result).toMatchObject({
      schema: 'desk-load-result',
      schemaVersion: 1,
      verdict: { status: 'pass', exitCode: 0 },
    });
    expect(result.total.count).toBe(hits.length);
    expect(result.total.ok).toBe(hits.length);
    expect(result.scenarios[0]).toMatchObject({
      label: 'hit',
      type: 'endpoint',
      target: 'GET /hit',
      count: hits.length,
    });
    expect(result.timeline.reduce((n, p) => n + p.rps, 0)).toBe(hits.length);
    expect(out).toContain('verdict: PASS (exit 0)');
    expect(out).toMatch(/^hit +\d+/m);
    const html = readFileSync(join(outDir, 'report.html'), 'utf8');
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/<script|src=|href=/);
  });

  it('counts 429 and 503 apart, outside the error rate; other unexpected statuses are failures', async () => {
    let n = 0;
    const statuses: number[] = [];
    const { code, result } = await run((r) => {
      if (r.path !== '/hit') return { status: 404 };
      const status = [200, 429, 200, 503, 200][n++ % 5]!;
      statuses.push(status);
      return { status };
    }, 'thresholds: { error_rate: 0.5, p95_ms: 600000 }\n');
    const count = (s: number) => statuses.filter((x) => x === s).length;
    expect(result.total).toMatchObject({
      ok: count(200),
      throttled: count(429) + count(503),
      failed: 0,
      errors: 0,
      errorRate: 0,
    });
    expect(result.total.statuses).toMatchObject({ '429': count(429), '503': count(503) });
    expect(code).toBe(EXIT.pass);
  });

  it('breaches the error-rate threshold (exit 3) when statuses fall outside expect_status', async () => {
    let n = 0;
    const { code, result, out } = await run(() => ({ status: n++ % 4 === 0 ? 500 : 200 }));
    expect(result.total.failed).toBe(result.total.statuses['500']);
    expect(result.total.errorRate).toBeCloseTo(result.total.failed / result.total.count, 5);
    expect(result.verdict.checks).toContainEqual(
      expect.objectContaining({ scope: 'total', metric: 'error_rate', passed: false }),
    );
    expect(code).toBe(EXIT.thresholdsBreached);
    expect(out).toContain('threshold breached: total error_rate');
  });

  it('accepts a 503 listed in expect_status as a success', async () => {
    const { result } = await run(() => ({ status: 503 }), '', '    expect_status: [200, 503]\n');
    expect(result.total.ok).toBe(result.total.count);
    expect(result.total.throttled).toBe(0);
  });

  it('breaches a latency threshold set in the YAML (exit 3)', async () => {
    const { code, result } = await run(() => ({ delayMs: 20 }), 'thresholds: { p95_ms: 5 }\n');
    expect(result.verdict.checks).toContainEqual(
      expect.objectContaining({ scope: 'total', metric: 'p95_ms', limit: 5, passed: false }),
    );
    expect(code).toBe(EXIT.thresholdsBreached);
  });

  it('reports a generator that could not apply the open-model rate as saturated (exit 6)', async () => {
    server = await startRecordingServer(() => ({ delayMs: 300 }));
    const path = writeConfig(`target_url: ${server.url}
auth: { mode: none }
users: { peak: 1 }
rate: { requests_per_second: 40 }
duration_seconds: 1
targets: [{ type: endpoint, name: hit, method: GET, path: /hit }]
`);
    const outDir = tempDir('load-out-');
    const { code, out } = await cli(['--config', path, '--out', outDir]);
    const result = JSON.parse(readFileSync(join(outDir, 'result.json'), 'utf8')) as LoadResult;
    expect(result.verdict.saturation.saturated).toBe(true);
    expect(result.verdict.saturation.achievedRate).toBeLessThan(0.95);
    expect(result.timeline.reduce((n, p) => n + p.dropped, 0)).toBeGreaterThan(0);
    expect(code).toBe(EXIT.generatorSaturated);
    expect(out).toContain('generator saturated');
  });

  it('counts requests that got no response as errors with their code', async () => {
    const { createServer: createHttpServer } = await import('node:http');
    const raw = createHttpServer((req, res) => {
      if (req.url === '/hit') req.socket.destroy();
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(raw.address() as { port: number }).port}`;
    const outDir = tempDir('load-out-');
    try {
      const { code } = await cli(['--config', endpointConfig(url), '--out', outDir]);
      const result = JSON.parse(readFileSync(join(outDir, 'result.json'), 'utf8')) as LoadResult;
      expect(result.total.errors).toBe(result.total.count);
      expect(Object.keys(result.total.statuses).every((k) => k.startsWith('error:'))).toBe(true);
      // No response at all during the run: the target counts as unreachable.
      expect(code).toBe(EXIT.targetUnreachable);
    } finally {
      raw.closeAllConnections();
      await new Promise((r) => raw.close(r));
    }
  });

  it('exits 5 when the target is unreachable', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const { code, err } = await cli(['--config', endpointConfig(`http://127.0.0.1:${port}`)]);
    expect(code).toBe(EXIT.targetUnreachable);
    expect(err).toContain('target_unreachable');
  });

  it('exits 4 on an invalid configuration, listing every problem as file:line:column', async () => {
    const path = writeConfig('target_url: nope\nauth: { mode: bearer, token: plain }\ntargets: []\n');
    const { code, err } = await cli(['--config', path]);
    expect(code).toBe(EXIT.invalidConfig);
    expect(err).toContain(`${path}:1:13  invalid_value  target_url`);
    expect(err).toContain(`${path}:2:30  inline_secret  auth.token`);
    expect(err).toContain(`${path}:3:10  invalid_value  targets`);
    expect(err).toContain('3 problem(s)');
  });

  it('exits 4 when the config file cannot be read', async () => {
    expect((await cli(['--config', '/nonexistent/load.yaml'])).code).toBe(EXIT.invalidConfig);
  });

  it('exits 2 on wrong usage', async () => {
    expect((await cli([])).code).toBe(EXIT.usage);
    expect((await cli(['--config', 'x.yaml', '--bogus'])).code).toBe(EXIT.usage);
    expect((await cli(['--config', 'x.yaml', '--users', '0'])).code).toBe(EXIT.usage);
    expect((await cli(['--compare', 'a.json'])).code).toBe(EXIT.usage);
  });

  it('--help prints the options and exit codes', async () => {
    const { code, out } = await cli(['--help']);
    expect(code).toBe(0);
    expect(out).toContain('--dry-run');
    expect(out).toContain('6 generator saturated');
  });

  it('--dry-run prints the resolved plan with secrets masked and templates rendered reproducibly, sending nothing', async () => {
    server = await startRecordingServer();
    const path = writeConfig(`target_url: ${server.url}
auth: { mode: session, username: Administrator, password: "\${LOAD_PASSWORD}" }
duration_seconds: 10
targets:
  - type: endpoint
    name: e
    method: POST
    path: /x/{{ faker.string.uuid }}
    headers: { Authorization: "Bearer \${LOAD_TOKEN}", X-Name: "{{ faker.person.fullName }}" }
`);
    const env = { LOAD_PASSWORD: 'pw-very-secret', LOAD_TOKEN: 'tok-very-secret' };
    const first = await cli(['--config', path, '--dry-run', '--users', '7'], env);
    const second = await cli(['--config', path, '--dry-run', '--users', '7'], env);
    expect(first.code).toBe(0);
    expect(first.out).toBe(second.out);
    expect(first.out).not.toContain('very-secret');
    expect(first.out).toContain('password: "***"');
    expect(first.out).toContain('Authorization: "***"');
    expect(first.out).toContain('peak: 7');
    expect(first.out).toMatch(/path: \/x\/[0-9a-f-]{36}/);
    expect(server.received).toHaveLength(0);
  });

  it('--workers 2 runs two generator threads whose counts and histograms merge', async () => {
    const { code, result, hits } = await run(() => undefined, '', '', ['--workers', '2']);
    expect(code).toBe(EXIT.pass);
    expect(result.config.workers).toBe(2);
    expect(result.total.count).toBe(hits.length);
    expect(result.total.count).toBeGreaterThan(0);
  });

  it('--workers 2 in the open model splits the planned arrivals between the threads', async () => {
    server = await startRecordingServer();
    const path = writeConfig(`target_url: ${server.url}
auth: { mode: none }
users: { peak: 10 }
rate: { requests_per_second: 40 }
duration_seconds: 1
generator: { max_event_loop_lag_ms: 60000 }
thresholds: { p95_ms: 600000 }
targets: [{ type: endpoint, name: hit, method: GET, path: /hit }]
`);
    const outDir = tempDir('load-out-');
    await cli(['--config', path, '--out', outDir, '--workers', '2']);
    const result = JSON.parse(readFileSync(join(outDir, 'result.json'), 'utf8')) as LoadResult;
    const scheduled = result.timeline.reduce((n, p) => n + p.scheduled, 0);
    const dropped = result.timeline.reduce((n, p) => n + p.dropped, 0);
    expect(scheduled).toBe(40);
    expect(result.total.count + dropped).toBe(40);
    expect(server.received.filter((r) => r.path === '/hit')).toHaveLength(result.total.count);
  });

  it('--watch-pid samples CPU and RSS of a process and reports the memory trend', async () => {
    const { result, out } = await run(() => undefined, '', '', ['--watch-pid', String(process.pid)]);
    expect(result.targetProcess?.pid).toBe(process.pid);
    expect(result.targetProcess?.samples.length).toBeGreaterThanOrEqual(2);
    expect(result.targetProcess?.rssEndMb).toBeGreaterThan(0);
    expect(['stable', 'growing', 'shrinking']).toContain(result.targetProcess?.memoryTrend);
    expect(out).toContain(`target pid ${process.pid}`);
  });
});

describe('m benchmark --compare', () => {
  function resultFile(p95: number, rps: number, errorRate = 0, users = 10): string {
    const metrics = {
      count: 100,
      ok: 100,
      failed: 0,
      throttled: 0,
      errors: 0,
      statuses: {},
      rps,
      errorRate,
      histogram: '',
      latencyMs: { p50: 1, p95, p99: p95, max: p95, mean: 1 },
    };
    const config = {
      targetUrl: 'http://t',
      model: 'open',
      users,
      targetRps: 10,
      plannedDurationSeconds: 60,
      workers: 1,
      encryptionMode: 'metadata',
    };
    const r = {
      schema: 'desk-load-result',
      schemaVersion: 1,
      config,
      total: metrics,
      scenarios: [{ ...metrics, label: 's', type: 'rpc', target: 'a.b', weight: 1 }],
    };
    const path = join(tempDir('cmp-'), 'result.json');
    writeFileSync(path, JSON.stringify(r));
    return path;
  }

  it('exits 7 and marks the regressions when latency rose or throughput fell beyond the tolerance', async () => {
    const { code, out } = await cli(['--compare', resultFile(100, 200), resultFile(150, 150)]);
    expect(code).toBe(EXIT.regression);
    expect(out).toMatch(/total +p95_ms +100\.0 +150\.0 +\+50\.0% +REGRESSION/);
    expect(out).toMatch(/total +rps +200\.0 +150\.0 +-25\.0% +REGRESSION/);
  });

  it('exits 0 when changes stay within the tolerance', async () => {
    const { code, out } = await cli(['--compare', resultFile(100, 200), resultFile(105, 195)]);
    expect(code).toBe(EXIT.pass);
    expect(out).toContain('no regression');
    expect(out).not.toContain('different loads');
  });

  it('says first when the two runs had different loads', async () => {
    const { out } = await cli(['--compare', resultFile(100, 200, 0, 10), resultFile(100, 200, 0, 1000)]);
    expect(out.split('\n')[0]).toBe('note: the runs had different loads (users: 10 -> 1000)');
  });

  it("compares a flow's steps by name, and says when the stages differ", async () => {
    const withFlow = (stepP95: number, hold: number) => {
      const path = resultFile(100, 200);
      const r = JSON.parse(readFileSync(path, 'utf8'));
      r.config.stages = [
        { durationSeconds: 5, target: 10 },
        { durationSeconds: hold, target: 10 },
      ];
      const step = { ...r.total, name: 'create', target: 'create crm.Customer' };
      r.scenarios[0] = { ...r.scenarios[0], label: 'visit', type: 'flow', steps: [step] };
      step.latencyMs = { ...step.latencyMs, p95: stepP95 };
      writeFileSync(path, JSON.stringify(r));
      return path;
    };
    const { code, out } = await cli(['--compare', withFlow(10, 60), withFlow(20, 30)]);
    expect(code).toBe(EXIT.regression);
    expect(out.split('\n')[0]).toBe(
      'note: the runs had different loads (stages: 10 over 5 s, 10 over 60 s -> 10 over 5 s, 10 over 30 s)',
    );
    expect(out).toMatch(/visit > create +p95_ms +10\.0 +20\.0 +\+100\.0% +REGRESSION/);
    expect(out).toMatch(/visit +p95_ms +100\.0 +100\.0 +\+0\.0% +$/m);
  });

  it('refuses a file that is not a result (exit 2)', async () => {
    const bad = join(tempDir('cmp-'), 'x.json');
    writeFileSync(bad, '{"schema":"other"}');
    const { code, err } = await cli(['--compare', bad, resultFile(1, 1)]);
    expect(code).toBe(EXIT.usage);
    expect(err).toContain('invalid_result');
  });
});
