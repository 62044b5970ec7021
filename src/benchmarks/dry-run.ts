import { faker } from '@faker-js/faker/locale/en';
import { stringify } from 'yaml';
import type { CheckPlan } from './checks/checks';
import { statusCheckName } from './checks/checks';
import type { AuthPlan, FlowStepPlan, LoadPlan, ScenarioPlan, Thresholds } from './config/plan';
import type { RenderContext } from './template/template';

/** Seed of the fixed faker sequence a dry run renders templates with. */
const DRY_RUN_SEED = 1;

const MASK = '***';
const round3 = (n: number) => Math.round(n * 1000) / 1000;
const SECRET_HEADER = /authorization|cookie|token|secret|api[-_]?key|password/i;

/** A secret as shown: masked, or the placeholders of its unset variables (names only, never a value). */
function mask(secret: string): string {
  const unset = secret.match(/<unset [A-Za-z_][A-Za-z0-9_]*>/g);
  return unset ? unset.join(' ') : MASK;
}

function maskAuth(a: AuthPlan): Record<string, unknown> {
  switch (a.mode) {
    case 'session':
      return { mode: a.mode, login_url: a.loginUrl, username: a.username, password: mask(a.password) };
    case 'api_key':
      return { mode: a.mode, header_name: a.headerName, key: mask(a.key) };
    case 'bearer':
      return { mode: a.mode, token: mask(a.token) };
    case 'none':
      return { mode: a.mode };
    case 'custom':
      return { mode: a.mode, factory: a.factory.spec };
  }
}

function thresholdsYaml(t: Thresholds): Record<string, number | boolean | undefined> {
  return {
    p95_ms: t.p95Ms,
    p99_ms: t.p99Ms,
    error_rate: t.errorRate,
    min_rps: t.minRps,
    abort_on_fail: t.abortOnFail,
    abort_grace_seconds: t.abortGraceSeconds,
  };
}

function maskHeaders(h: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k, SECRET_HEADER.test(k) ? MASK : v]));
}

/** Checks as a list of their names (how results count them). */
function checksYaml(c: CheckPlan): string[] {
  return [statusCheckName(c), ...c.more.map((m) => m.name)];
}

/** Captured variables and data columns render as `<vars.name>`, `<data.column>`: they exist only in a run. */
const PREVIEW_CTX: RenderContext = {
  vars: new Proxy({}, { get: (_t, name) => `<vars.${String(name)}>` }),
  data: new Proxy({}, { get: (_t, name) => `<data.${String(name)}>` }),
};

function step(st: FlowStepPlan): Record<string, unknown> {
  const r = st.request;
  const request =
    r.type === 'doctype'
      ? {
          doctype: r.doctype,
          op: r.op,
          id: r.id?.(PREVIEW_CTX),
          payload_overrides: r.overrides?.(PREVIEW_CTX),
          filters: r.filters?.(PREVIEW_CTX),
        }
      : r.type === 'rpc'
        ? { method: 'POST', rpc: r.method, kwargs: r.kwargs?.(PREVIEW_CTX), args: r.args?.(PREVIEW_CTX) }
        : {
            method: r.method,
            path: r.path(PREVIEW_CTX),
            headers: maskHeaders(r.headers(PREVIEW_CTX) as Record<string, unknown>),
            body: r.body?.(PREVIEW_CTX),
          };
  return {
    name: st.name,
    request,
    checks: checksYaml(st.checks),
    capture:
      st.captures.length > 0 ? Object.fromEntries(st.captures.map((c) => [c.name, c.from])) : undefined,
    think_seconds: st.think[1] > 0 ? st.think : undefined,
    thresholds: st.thresholds && thresholdsYaml(st.thresholds),
  };
}

function scenario(s: ScenarioPlan, plan: LoadPlan): Record<string, unknown> {
  const base: Record<string, unknown> = { label: s.label, type: s.type, weight: s.weight };
  if (s.auth !== plan.auth) base.auth = maskAuth(s.auth);
  base.thresholds = thresholdsYaml(s.thresholds);
  if (s.data)
    base.data = { file: s.data.file, mode: s.data.mode, rows: s.data.rows.length, columns: s.data.columns };
  if (s.type === 'flow') return { ...base, steps: s.steps.map(step) };
  base.checks = checksYaml(s.checks);
  if (s.type === 'doctype') {
    return {
      ...base,
      doctype: s.doctype,
      mix: s.mix,
      filters: s.filters?.(PREVIEW_CTX),
      payload_overrides: s.overrides?.(PREVIEW_CTX),
    };
  }
  if (s.type === 'rpc') {
    return {
      ...base,
      request: {
        method: 'POST',
        rpc: s.method,
        kwargs: s.kwargs?.(PREVIEW_CTX),
        args: s.args?.(PREVIEW_CTX),
      },
    };
  }
  return {
    ...base,
    request: {
      method: s.method,
      path: s.path(PREVIEW_CTX),
      headers: maskHeaders(s.headers(PREVIEW_CTX) as Record<string, unknown>),
      body: s.bodyFactory ? `(from ${s.bodyFactory.spec})` : s.body?.(PREVIEW_CTX),
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
    stages: plan.model.stages
      .filter((st) => st.durationSeconds > 0)
      .map((st) => ({ duration_seconds: round3(st.durationSeconds), target: round3(st.target) })),
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
      batch_ms: plan.generator.batchMs,
    },
    http: { timeout_seconds: plan.http.timeoutMs / 1000, connections: plan.http.connections },
    ...(plan.serverTiming ? { server_timing: true } : {}),
    scenarios: plan.scenarios.map((s) => scenario(s, plan)),
  };
  return stringify(doc, { lineWidth: 0 });
}
