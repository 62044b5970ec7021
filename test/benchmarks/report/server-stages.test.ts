import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchmarkCli } from '../../../src/benchmarks/cli';
import { Recorder } from '../../../src/benchmarks/engine/recorder';
import { renderOpenMetrics } from '../../../src/benchmarks/live/openmetrics';
import { Aggregator } from '../../../src/benchmarks/report/aggregate';
import { formatStageChanges } from '../../../src/benchmarks/report/compare';
import { renderHtml } from '../../../src/benchmarks/report/html-report';
import type { LoadResult, MetricsResult, StageMean } from '../../../src/benchmarks/report/result';
import { renderStageBars } from '../../../src/benchmarks/report/stage-chart';
import { formatSummary } from '../../../src/benchmarks/report/summary-table';
import { tempDir } from '../helpers/runtime';

const latency = { p50: 1.5, p95: 9.25, p99: 20, max: 31, mean: 2 };

function result(stages: Record<string, Record<string, StageMean> | undefined>, asked = true): LoadResult {
  const m: MetricsResult = {
    count: 30,
    ok: 30,
    failed: 0,
    throttled: 0,
    errors: 0,
    statuses: { 200: 30 },
    rps: 10,
    errorRate: 0,
    latencyMs: latency,
    histogram: '',
  };
  return {
    schema: 'desk-load-result',
    schemaVersion: 1,
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:03.000Z',
    durationSeconds: 3,
    config: {
      path: 'x.yaml',
      targetUrl: 'http://t',
      model: 'closed',
      users: 5,
      rampUpSeconds: 0,
      plannedDurationSeconds: 3,
      workers: 1,
      encryptionMode: 'metadata',
      ...(asked ? { serverTiming: true } : {}),
    },
    total: m,
    scenarios: Object.entries(stages).map(([label, serverTiming]) => ({
      ...m,
      label,
      type: 'endpoint' as const,
      target: 'GET /x',
      weight: 1,
      ...(serverTiming ? { serverTiming } : {}),
    })),
    timeline: [],
    verdict: {
      status: 'pass',
      exitCode: 0,
      checks: [],
      saturation: { saturated: false, reasons: [], lagP99MaxMs: 3, cpuPercent: 12 },
    },
  };
}

const READS = {
  auth: { meanMs: 0.2, count: 30 },
  db: { meanMs: 3.5, count: 30 },
  app: { meanMs: 1.25, count: 30 },
  total: { meanMs: 5, count: 30 },
};

describe('server stages in the report', () => {
  it('prints one summary line per timed scenario with its mean per stage and its responses', () => {
    const text = formatSummary(result({ reads: READS, other: undefined }));
    expect(text).toContain(
      'server stages: reads: auth 0.2, db 3.5, app 1.25, total 5 ms mean (30 responses)',
    );
    expect(text).not.toContain('server stages: other');
  });

  it('says the server sent none instead of drawing an empty chart', () => {
    const r = result({ reads: undefined });
    expect(formatSummary(r)).toContain(
      'server stages: the server sent no Server-Timing (it is sent to System Managers only)',
    );
    const html = renderHtml(r);
    expect(html).toContain('<p>The server sent no Server-Timing (it is sent to System Managers only).</p>');
    expect(html).not.toContain('Where the server spent its time');
  });

  it('says nothing of server stages when the run did not ask for them', () => {
    const r = result({ reads: undefined }, false);
    expect(formatSummary(r)).not.toContain('server stages');
    expect(renderHtml(r)).not.toContain('Server stages');
  });

  it('draws a stacked bar per scenario, a segment per stage without the total, and a table of the means', () => {
    const html = renderHtml(
      result({ reads: READS, writes: { db: { meanMs: 7, count: 4 }, total: { meanMs: 8, count: 4 } } }),
    );
    expect(html).toContain('<h2>Server stages</h2>');
    expect(html).toContain('<title>db: 3.5 ms</title>');
    expect(html).toContain('<title>db: 7 ms</title>');
    expect(html).not.toContain('<title>total:');
    expect(html).toMatch(/>5 ms<\/text>/);
    expect(html).toMatch(/>8 ms<\/text>/);
    expect(html).toContain('<tr><th>mean ms</th><th>reads</th><th>writes</th></tr>');
    expect(html).toContain('<tr><th>auth</th><td>0.2</td><td></td></tr>');
    expect(html).toContain('<tr><th>db</th><td>3.5</td><td>7</td></tr>');
  });
});

describe('renderStageBars', () => {
  it('gives a stage the same colour in every bar, and a legend entry per stage', () => {
    const svg = renderStageBars('t', [
      {
        label: 'a',
        stages: [
          ['auth', 1],
          ['db', 2],
        ],
        totalMs: 3,
      },
      { label: 'b', stages: [['db', 4]] },
    ]);
    const colorOf = (title: string) =>
      svg.match(new RegExp(`fill="(#[0-9a-f]+)"><title>${title}</title>`))?.[1];
    expect(colorOf('db: 2 ms')).toBeDefined();
    expect(colorOf('db: 2 ms')).toBe(colorOf('db: 4 ms'));
    expect(colorOf('auth: 1 ms')).not.toBe(colorOf('db: 2 ms'));
    expect(svg.match(/rx="3"/g)).toHaveLength(2);
    // The widest bar (b, 4 ms) spans the whole plot; a's segments are scaled to it.
    const widths = [...svg.matchAll(/width="([\d.]+)" height="28"/g)].map((m) => Number(m[1]));
    expect(widths).toEqual([130, 260, 520]);
    // b has no server total: its figure is the sum of its segments.
    expect(svg).toContain('>4 ms</text>');
  });
});

describe('server stages in OpenMetrics', () => {
  it('exposes seconds and responses per scenario and stage, each family together', () => {
    const rec = new Recorder(1, 0, () => 500, true, true, true);
    for (const header of ['db;dur=1.5, total;dur=2', 'db;dur=2.5, total;dur=4']) {
      rec.record(0, 1000, 'ok', 200);
      rec.serverTiming(0, { status: 200, text: '', headers: { 'server-timing': header } });
    }
    const agg = new Aggregator(['reads'], 1);
    agg.add(rec.flush(true));
    const text = renderOpenMetrics({ agg, elapsedSeconds: () => 1, cpuSeconds: () => 0 });
    expect(text).toContain('# TYPE desk_load_server_stage_responses counter');
    const lines = text.split('\n');
    const at = (s: string) => lines.indexOf(s);
    expect(at('desk_load_server_stage_seconds_total{scenario="reads",stage="db"} 0.004')).toBeGreaterThan(
      at('# TYPE desk_load_server_stage_seconds counter'),
    );
    expect(at('desk_load_server_stage_seconds_total{scenario="reads",stage="total"} 0.006')).toBeGreaterThan(
      0,
    );
    expect(at('desk_load_server_stage_responses_total{scenario="reads",stage="db"} 2')).toBeGreaterThan(
      at('desk_load_server_stage_seconds_total{scenario="reads",stage="total"} 0.006'),
    );
    expect(at('desk_load_server_stage_responses_total{scenario="reads",stage="total"} 2')).toBeGreaterThan(0);
  });
});

describe('--compare and server stages', () => {
  it('lists the change of each stage both runs timed', () => {
    const a = result({ reads: READS });
    const b = result({ reads: { ...READS, db: { meanMs: 7, count: 30 } }, other: READS });
    const text = formatStageChanges(a, b);
    expect(text).toMatch(/reads\s+db\s+3\.500\s+7\.000\s+\+100\.0%/);
    expect(text).toMatch(/reads\s+auth\s+0\.200\s+0\.200\s+\+0\.0%/);
    expect(text).not.toContain('other');
  });

  it('lists nothing when a run has no stages', () => {
    expect(formatStageChanges(result({ reads: undefined }), result({ reads: READS }))).toBe('');
  });

  it('prints the stage changes after the comparison, without judging them', async () => {
    const dir = tempDir('compare-stages-');
    const [a, b] = ['a.json', 'b.json'].map((f) => join(dir, f));
    writeFileSync(a!, JSON.stringify(result({ reads: READS })));
    writeFileSync(b!, JSON.stringify(result({ reads: { ...READS, db: { meanMs: 7, count: 30 } } })));
    let out = '';
    const io = { out: { write: (s: string) => (out += s) }, err: { write: () => {} } };
    const code = await benchmarkCli(['--compare', a!, b!], io, {});
    expect(code).toBe(0);
    expect(out).toContain('no regression\n\nserver stages (mean ms per response):');
    expect(out).toMatch(/reads\s+db\s+3\.500\s+7\.000\s+\+100\.0%/);
  });
});
