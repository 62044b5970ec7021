/**
 * `GET /metrics` on the real app: who may read it, and that its figures follow what the process does
 * (requests answered, statements run, slow statements, the database's own statistics).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS_READER } from '../../../backend/metrics/routes';
import { userWithRoles } from '../../helpers/roles';
import { createTestApp, type TestApp } from '../../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ config: { 'server.slow_statement_ms': 20 } });
});
afterAll(() => t.close());

/** The value of the sample written exactly as `series` (name and label set), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(authorization?: string): Promise<string> {
  const res = await t.request('GET', '/metrics', authorization ? { headers: { authorization } } : {});
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
  return res.text();
}

describe('GET /metrics', () => {
  it('is refused without credentials (401) and to a user with neither role (403)', async () => {
    const anonymous = await t.request('GET', '/metrics', { anonymous: true });
    expect(anonymous.status).toBe(401);
    const clerk = await userWithRoles(t.ctx, 'metrics.clerk', ['Sales User']);
    const refused = await t.request('GET', '/metrics', { headers: { authorization: clerk } });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('forbidden');
  });

  it('answers a System Manager and a Metrics Reader in the OpenMetrics format', async () => {
    const text = await scrape();
    expect(text.endsWith('# EOF\n')).toBe(true);
    expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE nodejs_eventloop_delay_seconds gauge');
    const reader = await userWithRoles(t.ctx, 'prometheus', [METRICS_READER]);
    expect(await scrape(reader)).toContain('# TYPE platform_http_requests counter');
  });

  it('counts answered requests by method and status class, refusals included', async () => {
    const series = 'platform_http_requests_total{method="GET",status="4xx"}';
    const before = sample(await scrape(), series) ?? 0;
    for (let i = 0; i < 3; i++) {
      expect((await t.request('GET', '/api/resource/crm.Nothing')).status).toBe(404);
    }
    expect(sample(await scrape(), series)).toBe(before + 3);
  });

  it('times every statement by kind, counts slow ones, and reads the database statistics', async () => {
    const inserts = 'platform_db_statement_duration_seconds_count{kind="insert"}';
    const slow = 'platform_db_slow_statements_total{kind="select"}';
    const first = await scrape();
    const created = await t.request('POST', '/api/resource/crm.Lead', { body: { lead_name: 'Ada' } });
    expect(created.status).toBe(201);
    // A statement slower than server.slow_statement_ms (20 ms here) through the process's own handle.
    await t.ctx.db.query('SELECT pg_sleep(0.05)');
    const second = await scrape();
    expect(sample(second, inserts)).toBeGreaterThan(sample(first, inserts) ?? 0);
    // At least the one sleep: on a busy machine another select may cross the threshold too.
    expect(sample(second, slow)).toBeGreaterThanOrEqual((sample(first, slow) ?? 0) + 1);
    expect(sample(second, 'platform_db_statements_in_flight')).toBe(0);
    // The database's own counters: a backend reports them at most once a second, so they lag a little.
    expect(sample(second, 'platform_db_transactions_committed_total')).toBeGreaterThan(0);
    expect(sample(second, 'platform_db_blocks_hit_total')).toBeGreaterThan(0);
    // The embedded database has no pool.
    expect(second).not.toContain('platform_db_connections');
  });
});
