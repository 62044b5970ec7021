import { compileChecks } from '../checks/checks';
import { shorthandStages, stagesDuration } from '../engine/stages';
import { loadedFaker } from '../template/faker-source';
import { compileTemplate, type TemplateProblem } from '../template/template';
import { buildFlowSteps } from './build-flow';
import type { CompileAt } from './compile-at';
import { dataPlan } from './data-file';
import type { ConfigIssue, ConfigPath, YamlSource } from './issues';
import { type ModuleRef, resolveModuleRef } from './module-ref';
import type { AuthPlan, LoadPlan, Mix, PlanSource, ScenarioPlan, SlotPlan, Stage, Thresholds } from './plan';
import type { AuthConfig, LoadConfig } from './schema';
import { thresholdsOf } from './thresholds';

/** Reference targets (docs/load-testing.md#reference-targets): p95 below 200 ms, error rate below 1 %. */
const DEFAULT_THRESHOLDS: Thresholds = { p95Ms: 200, errorRate: 0.01 };

/** Default run length when neither duration_seconds nor stages give one. */
const DEFAULT_DURATION_S = 300;

/**
 * Resolves validated YAML into the {@link LoadPlan}: defaults, templates compiled, checks and module
 * references resolved, stages derived from the shorthand. Problems found on the way (templates, module
 * paths, duplicate names) are added to `issues`, each at its YAML position.
 */
export function buildPlan(
  c: LoadConfig,
  source: PlanSource,
  configPath: string,
  src: YamlSource,
  issues: ConfigIssue[],
): LoadPlan {
  const moduleRef = (spec: string, path: ConfigPath): ModuleRef => {
    const ref = resolveModuleRef(spec, configPath);
    if (typeof ref === 'string') {
      issues.push(src.issue('factory_not_found', path, ref));
      return { spec, file: '', exportName: '' };
    }
    return ref;
  };
  const authOf = (a: AuthConfig, path: ConfigPath): AuthPlan => {
    switch (a.mode) {
      case 'session':
        return { mode: 'session', loginUrl: a.login_url, username: a.username, password: a.password };
      case 'api_key':
        return { mode: 'api_key', headerName: a.header_name, key: a.key };
      case 'bearer':
        return { mode: 'bearer', token: a.token };
      case 'none':
        return { mode: 'none' };
      case 'custom':
        return { mode: 'custom', factory: moduleRef(a.factory, [...path, 'factory']) };
    }
  };
  const compile: CompileAt = (value, path, scope) => {
    const problems: TemplateProblem[] = [];
    const faker = loadedFaker();
    // Loaded by whoever read the plan when its text or variables name faker (loadFakerFor).
    if (!faker && JSON.stringify(value).includes('faker'))
      throw new Error('a plan that uses faker is compiled after loadFaker()');
    const renderer = compileTemplate(value, faker, c.seed, problems, [], scope);
    for (const p of problems) issues.push(src.issue('unknown_template', [...path, ...p.path], p.message));
    return renderer;
  };
  const thresholds = thresholdsOf(c.thresholds, DEFAULT_THRESHOLDS);
  const auth = authOf(c.auth, ['auth']);
  const seen = new Map<string, number>();
  const stepSlots: SlotPlan[] = [];
  const scenarios = c.targets.map((t, index): ScenarioPlan => {
    const path = ['targets', index];
    const label = t.label ?? t.name;
    if (seen.has(label)) {
      issues.push(
        src.issue(
          'duplicate_scenario',
          [...path, t.label ? 'label' : 'name'],
          `"${label}" is also targets[${seen.get(label)}]; give one a distinct label`,
        ),
      );
    }
    seen.set(label, index);
    const common = {
      index,
      label,
      weight: t.weight,
      auth: t.auth ? authOf(t.auth, [...path, 'auth']) : auth,
      // A scenario inherits the latency and error limits; min_rps only applies where it is set.
      thresholds: thresholdsOf(t.thresholds, { ...thresholds, minRps: undefined }),
    };
    // A data file's columns are `{{ data.<column> }}` in this scenario's templates.
    const data = t.data
      ? dataPlan(t.data, [...path, 'data', 'file'], configPath, source, src, issues)
      : undefined;
    const scope = data ? { data: new Set(data.columns) } : undefined;
    const compileIn: CompileAt = (v, p) => compile(v, p, scope);
    const checksOf = (status: number[]) =>
      compileChecks(t.expect, status, (v, p) => compileIn(v, [...path, 'expect', ...p]));
    if (t.type === 'endpoint' || t.type === 'rpc') {
      if (t.expect_status && t.expect?.status !== undefined)
        issues.push(
          src.issue(
            'invalid_value',
            [...path, 'expect_status'],
            'give expect.status or expect_status, not both',
          ),
        );
    }
    if (t.type === 'doctype') {
      return {
        ...common,
        data,
        type: 'doctype',
        // The data API answers 200 (201 for a create, 204 for a delete are accepted too).
        checks: checksOf([200, 201, 204]),
        doctype: t.name,
        mix: normalizeMix(t.mix),
        filters: t.filters ? compileIn(t.filters, [...path, 'filters']) : undefined,
        overrides: t.payload_overrides
          ? compileIn(t.payload_overrides, [...path, 'payload_overrides'])
          : undefined,
      };
    }
    if (t.type === 'endpoint') {
      return {
        ...common,
        data,
        type: 'endpoint',
        checks: checksOf(t.expect_status ?? [200]),
        method: t.method,
        path: compileIn(t.path, [...path, 'path']),
        headers: compileIn(t.headers ?? {}, [...path, 'headers']),
        body: t.body ? compileIn(t.body, [...path, 'body']) : undefined,
        bodyFactory: t.body_factory ? moduleRef(t.body_factory, [...path, 'body_factory']) : undefined,
      };
    }
    if (t.type === 'flow') {
      const firstSlot = c.targets.length + stepSlots.length;
      const steps = buildFlowSteps(
        t.steps,
        [...path, 'steps'],
        firstSlot,
        compile,
        src,
        issues,
        data?.columns,
      );
      for (const [i, s] of steps.entries())
        stepSlots.push({ label: `${label} > ${s.name}`, scenario: index, step: i });
      return { ...common, type: 'flow', checks: compileChecks(undefined, []), steps, data };
    }
    return {
      ...common,
      data,
      type: 'rpc',
      checks: checksOf(t.expect_status ?? [200]),
      method: t.method,
      args: t.args ? compileIn(t.args, [...path, 'args']) : undefined,
      kwargs: t.kwargs ? compileIn(t.kwargs, [...path, 'kwargs']) : undefined,
    };
  });
  const u = c.users;
  const userStages = u.stages?.map(stageOf);
  // With user stages, the peak is the highest stage (users.peak only bounds the open model).
  const peak = userStages ? Math.ceil(Math.max(...userStages.map((s) => s.target))) : u.peak;
  // spawn_rate wins over ramp_up_seconds when both are given (docs/load-testing.md).
  const spawnRate = u.spawn_rate ?? (u.ramp_up_seconds ? peak / u.ramp_up_seconds : Number.POSITIVE_INFINITY);
  const rampUpSeconds = Number.isFinite(spawnRate) ? peak / spawnRate : 0;
  const think = u.think_time_seconds ?? 0;
  const rateStages = c.rate?.stages?.map(stageOf);
  const stagesLength = userStages ?? rateStages;
  const durationSeconds =
    source.overrides.durationSeconds ??
    c.duration_seconds ??
    (stagesLength ? stagesDuration(stagesLength) : DEFAULT_DURATION_S);
  const rate =
    c.rate?.requests_per_second ?? (c.rate?.requests_per_minute ? c.rate.requests_per_minute / 60 : 0);
  const model: LoadPlan['model'] = c.rate
    ? {
        kind: 'open',
        ratePerSecond: rateStages ? Math.max(...rateStages.map((s) => s.target)) : rate,
        stages: rateStages ?? shorthandStages(rate, rampUpSeconds, durationSeconds),
      }
    : { kind: 'closed', stages: userStages ?? shorthandStages(peak, rampUpSeconds, durationSeconds) };
  return {
    configPath,
    source,
    targetUrl: c.target_url.replace(/\/+$/, ''),
    hostHeader: u.host,
    durationSeconds,
    users: {
      peak,
      spawnRate,
      rampUpSeconds,
      thinkTime: typeof think === 'number' ? [think, think] : think,
    },
    model,
    seed: c.seed,
    auth,
    scenarios,
    slots: [...scenarios.map((s) => ({ label: s.label, scenario: s.index })), ...stepSlots],
    thresholds,
    generator: {
      workers: c.generator.workers,
      maxEventLoopLagMs: c.generator.max_event_loop_lag_ms,
      minAchievedRate: c.generator.min_achieved_rate,
      batchMs: c.generator.batch_ms,
    },
    http: {
      timeoutMs: c.http.timeout_seconds * 1000,
      connections: c.http.connections ?? Math.min(peak, 512),
    },
    serverTiming: c.server_timing,
  };
}

function normalizeMix(m: Partial<Mix>): Mix {
  const mix = { read: m.read ?? 0, create: m.create ?? 0, update: m.update ?? 0, delete: m.delete ?? 0 };
  const sum = mix.read + mix.create + mix.update + mix.delete;
  return {
    read: mix.read / sum,
    create: mix.create / sum,
    update: mix.update / sum,
    delete: mix.delete / sum,
  };
}

function stageOf(s: { duration_seconds: number; target: number }): Stage {
  return { durationSeconds: s.duration_seconds, target: s.target };
}
