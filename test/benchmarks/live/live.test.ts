import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { benchmarkCli } from '../../../src/benchmarks/cli';
import { EXIT } from '../../../src/benchmarks/exit-codes';
import type { LoadResult } from '../../../src/benchmarks/report/result';
import { launchChromium, screenshot } from '../../e2e/support/browser';
import { type RecordingServer, startRecordingServer } from '../helpers/recording-server';
import { tempDir, writeConfig } from '../helpers/runtime';

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Starts a run in the background; resolves `url` once the CLI prints the live endpoint's address. */
async function startRun(
  args: string[],
  seconds: number,
  endpoint: 'metrics' | 'dashboard',
  serverTiming = false,
) {
  // With `server_timing`, every answer names the server's stages the way the platform does (one per stage,
  // then `total`); /slow spends longer in the database.
  server = await startRecordingServer((r) => {
    const timing = serverTiming
      ? {
          'server-timing':
            r.path === '/slow' ? 'auth;dur=1, db;dur=12, total;dur=14' : 'auth;dur=1, total;dur=2',
        }
      : undefined;
    return r.path === '/slow' ? { delayMs: 20, headers: timing } : timing && { headers: timing };
  });
  const path = writeConfig(`target_url: ${server.url}
auth: { mode: none }${serverTiming ? '\nserver_timing: true' : ''}
users: { peak: 3, think_time_seconds: 0.02 }
duration_seconds: ${seconds}
generator: { max_event_loop_lag_ms: 60000 }
thresholds: { p95_ms: 600000 }
targets:
  - { type: endpoint, name: fast, method: GET, path: /fast }
  - { type: endpoint, name: slow, method: GET, path: /slow, expect: { json: { missing: { exists: true } } } }
`);
  const outDir = tempDir('load-live-');
  let resolveUrl: (u: string) => void = () => {};
  const url = new Promise<string>((r) => {
    resolveUrl = r;
  });
  const io = {
    out: { write: () => true },
    err: {
      write: (s: string) => {
        const m = new RegExp(`^${endpoint}: (\\S+)$`, 'm').exec(s);
        if (m) resolveUrl(m[1]!);
        return true;
      },
    },
  };
  const done = benchmarkCli(['--config', path, '--out', outDir, ...args], io, {});
  return { url: await url, done, outDir };
}

describe('live output', () => {
  it('--metrics-port serves OpenMetrics with per-scenario series while the run lasts', async () => {
    const run = await startRun(['--metrics-port', '0'], 3, 'metrics');
    let body = '';
    // Poll until the first second is in (no timing assumption beyond the run's own length).
    for (
      let i = 0;
      i < 40 && !/desk_load_requests_total\{scenario="slow",outcome="failed"\} [1-9]/.test(body);
      i++
    ) {
      const res = await fetch(run.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/openmetrics-text');
      body = await res.text();
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(body).toMatch(/^desk_load_requests_total\{scenario="fast",outcome="ok"\} [1-9]\d*$/m);
    expect(body).toMatch(/^desk_load_requests_total\{scenario="slow",outcome="failed"\} [1-9]\d*$/m);
    expect(body).toMatch(
      /^desk_load_check_failures_total\{scenario="slow",check="json missing exists"\} [1-9]\d*$/m,
    );
    expect(body).toMatch(/^desk_load_latency_seconds_bucket\{scenario="slow",le="0\.01"\} 0$/m);
    expect(body).toMatch(/^desk_load_latency_seconds_bucket\{scenario="slow",le="\+Inf"\} [1-9]\d*$/m);
    expect(body).toMatch(/^desk_load_generator_cpu_seconds_total \d+\.\d{3}$/m);
    expect(body.trimEnd().endsWith('# EOF')).toBe(true);
    expect(await run.done).toBe(EXIT.thresholdsBreached);
    // Once the run is over, nothing listens any more.
    await expect(fetch(run.url)).rejects.toThrow();
  });

  it('--dashboard serves a page whose charts advance every second in Chromium', async () => {
    // The browser first, so the page is there while the run lasts.
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const run = await startRun(['--dashboard', '0'], 4, 'dashboard', true);
      await page.goto(run.url);
      // Points drawn in the first chart: its lines' points, and the dots of points alone.
      const plotted = () => {
        const svg = document.querySelector('#charts svg');
        if (!svg) return 0;
        const inLines = [...svg.querySelectorAll('polyline')].map(
          (l) => (l.getAttribute('points') ?? '').trim().split(' ').length,
        );
        return inLines.reduce((n, k) => n + k, 0) + svg.querySelectorAll('circle').length;
      };
      const points = () => page.evaluate(plotted);
      await page.waitForFunction(() => document.querySelectorAll('#charts svg').length >= 4);
      // The first second drawn, then a later one added to it.
      await page.waitForFunction(`(${plotted.toString()})() > 0`, undefined, { timeout: 10_000 });
      const first = await points();
      await page.waitForFunction(`(${plotted.toString()})() > ${first}`, undefined, { timeout: 10_000 });
      expect(await points()).toBeGreaterThan(first);
      expect(await page.textContent('#progress')).toMatch(/\/ 4 s, \d+ users, \d+ req\/s/);
      // The server's stages, a stacked bar per scenario as in the report: each stage a segment (not `total`,
      // which is the bar's figure), the same stage the same colour in both bars.
      await page.waitForFunction(() => document.querySelectorAll('#stages svg rect title').length >= 3);
      const segments = await page.$$eval('#stages svg rect', (rects) =>
        rects
          .filter((r) => r.querySelector('title'))
          .map((r) => ({ title: r.querySelector('title')!.textContent, fill: r.getAttribute('fill') })),
      );
      expect(segments.map((s) => s.title)).toEqual(['auth: 1 ms', 'auth: 1 ms', 'db: 12.0 ms']);
      expect(segments[0]!.fill).toBe(segments[1]!.fill);
      expect(segments[2]!.fill).not.toBe(segments[0]!.fill);
      const barText = await page.textContent('#stages svg');
      expect(barText).toContain('fast');
      expect(barText).toContain('slow');
      expect(barText).toContain('14.0 ms');
      // And the table beside them: a row per stage and the total, a column per scenario.
      const table = await page.$$eval('#stage-table tr', (rows) =>
        rows.map((r) => [...r.children].map((c) => c.textContent)),
      );
      expect(table).toEqual([
        ['mean ms', 'fast', 'slow'],
        ['auth', '1', '1'],
        ['db', '', '12'],
        ['total', '2', '14'],
      ]);
      await screenshot(page, 'load-dashboard');
      expect(await run.done).toBe(EXIT.thresholdsBreached);
      await page.waitForFunction(
        () => document.getElementById('status')?.textContent === 'thresholds_breached',
      );
      const result = JSON.parse(readFileSync(join(run.outDir, 'result.json'), 'utf8')) as LoadResult;
      const report = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await report.goto(`file://${join(run.outDir, 'report.html')}`);
      // The report's charts fill the page: two per row at this width.
      const widths = await report.evaluate(() =>
        [...document.querySelectorAll('.chart svg')].map((s) => s.getBoundingClientRect().width),
      );
      expect(widths.every((w) => w > 520)).toBe(true);
      await screenshot(report, 'load-report');
      expect(result.scenarios.map((s) => s.label)).toEqual(['fast', 'slow']);
    } finally {
      await browser.close();
    }
  });
});
