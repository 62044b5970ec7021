import { describe, expect, it } from 'vitest';
import type { TimelinePoint } from '../../../src/benchmarks/report/aggregate';
import { describeLoad, describeStages } from '../../../src/benchmarks/report/describe-load';
import { renderHtml } from '../../../src/benchmarks/report/html-report';
import { LiveView } from '../../../src/benchmarks/report/live-view';
import type { LoadResult, MetricsResult } from '../../../src/benchmarks/report/result';
import { formatSummary } from '../../../src/benchmarks/report/summary-table';

const latency = { p50: 1.5, p95: 9.25, p99: 20, max: 31, mean: 2 };

function point(t: number, label = 'a'): TimelinePoint {
  return {
    t,
    rps: 10,
    latency,
    errors: 1,
    throttled: 2,
    scenarios: { [label]: { rps: 10, latency, errors: 1, throttled: 2 } },
    lagMs: 3,
    users: 5,
    scheduled: 0,
    dropped: 0,
  };
}

function result(label: string): LoadResult {
  const m: MetricsResult = {
    count: 30,
    ok: 25,
    failed: 3,
    throttled: 2,
    errors: 0,
    statuses: {},
    rps: 10,
    errorRate: 0.107,
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
    },
    total: m,
    scenarios: [{ ...m, label, type: 'rpc', target: 'a.b', weight: 1 }],
    timeline: [point(0, label), point(1, label), point(2, label)],
    verdict: {
      status: 'thresholds_breached',
      exitCode: 3,
      checks: [{ scope: 'total', metric: 'error_rate', limit: 0.01, actual: 0.107, passed: false }],
      saturation: { saturated: false, reasons: [], lagP99MaxMs: 3, cpuPercent: 12 },
    },
  };
}

describe('LiveView', () => {
  it('rewrites one line in place on a terminal', () => {
    let out = '';
    const view = new LiveView({ isTTY: true, write: (s: string) => (out += s) }, 10);
    view.update(point(0));
    view.update(point(1));
    view.done();
    expect(out.split('\r\x1b[2K')).toHaveLength(3);
    expect(out).toContain('2/10s  20%  users 5  rps 10  p95 9.3 ms  errors 2 (10.00%)  429/503 4');
    expect(out.endsWith('\n')).toBe(true);
  });

  it('cuts the terminal line to the terminal width', () => {
    let out = '';
    const view = new LiveView({ isTTY: true, columns: 40, write: (s: string) => (out += s) }, 10);
    view.update(point(0));
    expect(out.replace('\r\x1b[2K', '')).toHaveLength(39);
  });

  it('prints plain lines every 5 s when the output is not a terminal', () => {
    const lines: string[] = [];
    const view = new LiveView({ write: (s: string) => lines.push(s) }, 12);
    for (let t = 0; t < 12; t++) view.update(point(t));
    view.done();
    expect(lines.every((l) => !l.includes('\x1b') && l.endsWith('\n'))).toBe(true);
    expect(lines.map((l) => l.trim().split('/')[0])).toEqual(['1', '6', '11']);
  });
});

describe('reports', () => {
  it('renders a summary table with the verdict and breached thresholds', () => {
    const text = formatSummary(result('a'));
    expect(text).toMatch(/^a +30 +10\.0 +1\.5 +9\.3 +20\.0 +31\.0 +10\.70% +3 +2$/m);
    expect(text).toContain('threshold breached: total error_rate 0.107 (limit 0.01)');
    expect(text).toContain('verdict: THRESHOLDS_BREACHED (exit 3)');
  });

  it('renders a self-contained HTML report with charts that fill the page width, escaping names', () => {
    const html = renderHtml(result('<img src=x onerror=alert(1)>'));
    // Rate, latency, errors, generator (a single scenario has no chart of its own: it is the total).
    expect(html.match(/<svg /g)?.length).toBe(4);
    expect(html.match(/<svg [^>]*viewBox="0 0 760 \d+" width="100%"/g)?.length).toBe(4);
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(html).not.toContain('<img');
    expect(html).not.toMatch(/<script|<link|https?:\/\/(?!t\b|www\.w3\.org)/);
  });

  it('describes the planned load by its stages: ramps, holds and jumps', () => {
    expect(
      describeStages(
        [
          { durationSeconds: 3, target: 10 },
          { durationSeconds: 8, target: 10 },
          { durationSeconds: 3, target: 0 },
        ],
        'users',
      ),
    ).toBe('0 → 10 users over 3 s, 10 users for 8 s, 10 → 0 users over 3 s');
    // The shorthand without a ramp-up: a jump to the peak, then a hold.
    expect(
      describeStages(
        [
          { durationSeconds: 0, target: 167 },
          { durationSeconds: 60, target: 167 },
        ],
        'req/s',
      ),
    ).toBe('167 req/s for 60 s');
    const r = result('a');
    expect(describeLoad(r)).toBe('closed model: 5 users, ramp-up 0 s; 3 s measured, 1 generator thread(s)');
    r.config.stages = [
      { durationSeconds: 1, target: 5 },
      { durationSeconds: 2, target: 5 },
    ];
    expect(renderHtml(r)).toContain(
      '<dd>closed model: 0 → 5 users over 1 s, 5 users for 2 s; 3 s measured, 1 generator thread(s)</dd>',
    );
  });
});
