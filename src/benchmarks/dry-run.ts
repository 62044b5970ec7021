import { faker } from '@faker-js/faker/locale/en';
import { stringify } from 'yaml';
import type { AuthPlan, LoadPlan, ScenarioPlan, Thresholds } from './config/plan';

/** Seed of the fixed faker sequence a dry run renders templates with. */
const DRY_RUN_SEED = 1;

const MASK = '***';
const round3 = (n: number) => Math.round(n * 1000) / 1000;
const SECRET_HEADER = /authorization|cookie|token|secret|api[-_]?key|password/i;

function maskAuth(a: AuthPlan): Record<string, unknown> {
  switch (a.mode) {
    case 'session':
      return { mode: a.mode, login_url: a.loginUrl, username: a.username, password: MASK };
    case 'api_key':
      return { mode: a.mode, header_name: a.headerName, key: MASK };
    case 'bearer':
      return { mode: a.mode, token: MASK };
    case 'none':
      return { mode: a.mode };
    case 'custom':
      return { mode: a.mode, factory: a.factory.spec };
  }
}

function thresholdsYaml(t: Thresholds): Record<string, number | undefined> {
  return { p95_ms: t.p95Ms, p99_ms: t.p99Ms, error_rate: t.errorRate, min_rps: t.minRps };
}

function maskHeaders(h: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k, SECRET_HEADER.test(k) ? MASK : v]));
}

function scenario(s: ScenarioPlan, plan: LoadPlan): Record<string, unknown> {
  const base: Record<string, unknown> = { label: s.label, type: s.type, weight: s.weight };
  if (s.auth !== plan.auth) base.auth = maskAuth(s.auth);
  base.thresholds = thresholdsYaml(s.thresholds);
  if (s.type === 'doctype') {
    return {
      ...base,
      doctype: s.doctype,
      mix: s.mix,
      filters: s.filters?.(),
      payload_overrides: s.overrides?.(),
    };
  }
  if (s.type === 'rpc') {
    return {
      ...base,
      expect_status: s.expectStatus,
      request: { method: 'POST', rpc: s.method, kwargs: s.kwargs?.(), args: s.args?.() },
    };
  }
  return {
    ...base,
    expect_status: s.expectStatus,
    request: {
      method: s.method,
      path: s.path(),
      headers: maskHeaders(s.headers() as Record<string, unknown>),
      body: s.bodyFactory ? `(from ${s.bodyFactory.spec})` : s.body?.(),
    },
  };
}

/**
 * The resolved plan as YAML, for `--dry-run`: defaults applied, environment substituted, templates rendered
 * once with faker seeded to {@link DRY_RUN_SEED} (the output is reproducible), secrets masked.
 */
export function describePlan(plan: LoadPlan): string {
  faker.seed(DRY_RUN_SEED);
  const u = plan.users;
  const doc = {
    target_url: plan.targetUrl,
    model:
      plan.model.kind === 'open'
        ? { kind: 'open (arrival rate)', requests_per_second: round3(plan.model.ratePerSecond) }
        : { kind: 'closed (users)' },
    duration_seconds: plan.durationSeconds,
    users: {
      peak: u.peak,
      ramp_up_seconds: round3(u.rampUpSeconds),
      spawn_rate: Number.isFinite(u.spawnRate) ? round3(u.spawnRate) : 'all at once',
      host: plan.hostHeader,
      think_time_seconds: u.thinkTime,
    },
    auth: maskAuth(plan.auth),
    seed: plan.seed,
    thresholds: thresholdsYaml(plan.thresholds),
    generator: {
      workers: plan.generator.workers,
      max_event_loop_lag_ms: plan.generator.maxEventLoopLagMs,
      min_achieved_rate: plan.generator.minAchievedRate,
    },
    http: { timeout_seconds: plan.http.timeoutMs / 1000, connections: plan.http.connections },
    scenarios: plan.scenarios.map((s) => scenario(s, plan)),
  };
  return stringify(doc, { lineWidth: 0 });
}
