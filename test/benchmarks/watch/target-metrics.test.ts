/**
 * `--watch-target`: readings of the target's `/metrics` turned into per-second samples, against the real
 * app's own endpoint (what `m serve` answers).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  parseMetricsText,
  sampleBetween,
  TargetMetricsSampler,
} from '../../../src/benchmarks/watch/target-metrics';
import { apiKeyAuthorization } from '../../helpers/auth';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

describe('a reading of /metrics', () => {
  it('gives rates over the interval between two readings', () => {
    const before = parseMetricsText(
      [
        '# TYPE process_cpu_seconds counter',
        'process_cpu_seconds_total 10',
        'platform_http_requests_total{method="GET",status="2xx"} 100',
        'platform_http_requests_total{method="POST",status="4xx"} 5',
        'platform_db_statement_duration_seconds_count{kind="select"} 1000',
        'platform_db_statement_duration_seconds_sum{kind="select"} 2',
        'platform_db_blocks_hit_total 900',
        'platform_db_blocks_read_total 100',
        'platform_job_items_processed_total{kind="import"} 50',
        '# EOF',
      ].join('\n'),
    );
    const after = parseMetricsText(
      [
        'process_cpu_seconds_total 10.5',
        'process_resident_memory_bytes 104857600',
        'nodejs_eventloop_delay_seconds{quantile="0.99"} 0.012',
        'platform_http_requests_total{method="GET",status="2xx"} 290',
        'platform_http_requests_total{method="POST",status="4xx"} 15',
        'platform_db_statement_duration_seconds_count{kind="select"} 1400',
        'platform_db_statement_duration_seconds_sum{kind="select"} 2.8',
        'platform_db_slow_statements_total{kind="select"} 3',
        'platform_db_blocks_hit_total 1890',
        'platform_db_blocks_read_total 110',
        'platform_db_connections{state="open"} 4',
        'platform_db_connections{state="waiting"} 1',
        'platform_job_items_processed_total{kind="import"} 250',
        'platform_job_items_remaining{kind="import"} 700',
      ].join('\n'),
    );
    expect(sampleBetween(before, after, 2, 7)).toEqual({
      t: 7,
      cpuPercent: 25,
      rssMb: 100,
      loopDelayMs: 12,
      requestsPerSecond: 100,
      statementsPerSecond: 200,
      statementMeanMs: 2,
      slowStatements: 3,
      cacheHitPercent: 99,
      connectionsOpen: 4,
      connectionsWaiting: 1,
      jobItemsPerSecond: 100,
      jobItemsRemaining: 700,
    });
  });
});

describe('the sampler against the real app', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  const viaApp: typeof fetch = (input, init) =>
    Promise.resolve(t.app.fetch(new Request(input as string, init)));

  it('samples while records are written, and sees their statements', async () => {
    const sampler = new TargetMetricsSampler({
      targetUrl: 'http://desk.test',
      authorization: await apiKeyAuthorization(t.ctx),
      intervalMs: 20,
      fetch: viaApp,
    });
    await sampler.start();
    for (let i = 0; i < 20; i++) {
      expect(
        (await t.request('POST', '/api/resource/crm.Lead', { body: { lead_name: `L${i}` } })).status,
      ).toBe(201);
    }
    const watch = await sampler.stop();
    expect(watch.url).toBe('http://desk.test/metrics');
    expect(watch.failedReadings).toBe(0);
    expect(watch.samples.length).toBeGreaterThan(0);
    // Between the first reading and the last: the 20 creates, and every reading but the last (a reading
    // counts once it is answered, so it shows in the next one).
    expect(watch.requestsAnswered).toBe(20 + watch.samples.length);
    expect(watch.samples.some((s) => s.statementsPerSecond > 0)).toBe(true);
    expect(watch.samples.every((s) => s.connectionsOpen === null)).toBe(true);
  });

  it('refuses to start with credentials /metrics does not accept', async () => {
    const sampler = new TargetMetricsSampler({
      targetUrl: 'http://desk.test',
      authorization: await userWithRoles(t.ctx, 'no.metrics', ['Sales User']),
      fetch: viaApp,
    });
    await expect(sampler.start()).rejects.toMatchObject({
      code: 'login_failed',
      message: expect.stringContaining('GET http://desk.test/metrics answered 403'),
    });
  });
});
