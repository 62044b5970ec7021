import { readFile } from 'node:fs/promises';
import { faker } from '@faker-js/faker/locale/en';
import type { z } from 'zod';
import { compileTemplate, type TemplateProblem } from '../template/template';
import { checkInlineSecrets, substituteEnv } from './env';
import { type ConfigIssue, type ConfigPath, sortIssues, YamlSource } from './issues';
import { type ModuleRef, resolveModuleRef } from './module-ref';
import type { AuthPlan, LoadPlan, Mix, ScenarioPlan, Thresholds } from './plan';
import { type AuthConfig, type LoadConfig, loadConfigSchema, type ThresholdsConfig } from './schema';

/** Command-line overrides applied before validation (so they are validated like the file). */
export interface PlanOverrides {
  /** The same file against another deployment (staging, a test server). */
  targetUrl?: string;
  durationSeconds?: number;
  users?: number;
  workers?: number;
}

/** Result of loading a config: a plan, or every problem found. */
export type PlanResult = { ok: true; plan: LoadPlan } | { ok: false; issues: ConfigIssue[] };

/** Reference targets (docs/load-testing.md#reference-targets): p95 below 200 ms, error rate below 1 %. */
const DEFAULT_THRESHOLDS: Thresholds = { p95Ms: 200, errorRate: 0.01 };

/** Reads and validates a load-test file. */
export async function loadPlanFile(
  configPath: string,
  env: Record<string, string | undefined> = process.env,
  overrides: PlanOverrides = {},
): Promise<PlanResult> {
  return loadPlan(await readFile(configPath, 'utf8'), configPath, env, overrides);
}

/**
 * Validates a load-test YAML text into a {@link LoadPlan}. Every problem is collected before returning,
 * each with its YAML line and column: syntax errors, schema errors (types, unknown and missing keys),
 * inline secrets, unset environment variables, unknown templates, duplicate scenario names and factory
 * modules that do not exist.
 */
export function loadPlan(
  text: string,
  configPath: string,
  env: Record<string, string | undefined> = process.env,
  overrides: PlanOverrides = {},
): PlanResult {
  const src = new YamlSource(text);
  const syntax = src.syntaxIssues();
  if (syntax.length > 0) return { ok: false, issues: syntax };
  const raw = src.toJS();
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    return {
      ok: false,
      issues: [src.issue('invalid_type', [], 'the file must be a YAML mapping of top-level keys')],
    };
  }
  const issues: ConfigIssue[] = [...checkInlineSecrets(raw, src)];
  const substituted = substituteEnv(raw, env, src, issues) as Record<string, unknown>;
  applyOverrides(substituted, overrides);
  const parsed = loadConfigSchema.safeParse(substituted);
  if (!parsed.success) issues.push(...zodIssues(parsed.error.issues, substituted, src));
  if (!parsed.success || issues.length > 0) return { ok: false, issues: sortIssues(issues) };
  const plan = buildPlan(parsed.data, configPath, src, issues);
  return issues.length > 0 ? { ok: false, issues: sortIssues(issues) } : { ok: true, plan };
}

function applyOverrides(raw: Record<string, unknown>, o: PlanOverrides) {
  if (o.targetUrl !== undefined) raw.target_url = o.targetUrl;
  if (o.durationSeconds !== undefined) raw.duration_seconds = o.durationSeconds;
  const obj = (key: string) => {
    const v = raw[key];
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    const fresh: Record<string, unknown> = {};
    raw[key] = fresh;
    return fresh;
  };
  if (o.users !== undefined) obj('users').peak = o.users;
  if (o.workers !== undefined) obj('generator').workers = o.workers;
}

function valueAt(root: unknown, path: ConfigPath): unknown {
  let cur = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

function zodIssues(list: z.core.$ZodIssue[], raw: unknown, src: YamlSource): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const i of list) {
    const path = i.path.filter((p): p is string | number => typeof p !== 'symbol');
    if (i.code === 'unrecognized_keys') {
      for (const k of i.keys) out.push(src.issue('unknown_key', [...path, k], `unknown key "${k}"`, true));
    } else if (i.code === 'invalid_type' && valueAt(raw, path) === undefined) {
      out.push(src.issue('missing_key', path, `"${String(path.at(-1))}" is required`));
    } else if (i.code === 'invalid_union' && 'discriminator' in i && i.discriminator) {
      const options = (i as { options?: unknown[] }).options ?? [];
      out.push(
        src.issue('invalid_value', path, `${String(i.discriminator)} must be one of ${options.join(', ')}`),
      );
    } else {
      out.push(src.issue(i.code === 'invalid_type' ? 'invalid_type' : 'invalid_value', path, i.message));
    }
  }
  return out;
}

function thresholdsOf(t: ThresholdsConfig | undefined, base: Thresholds): Thresholds {
  return {
    p95Ms: t?.p95_ms ?? base.p95Ms,
    p99Ms: t?.p99_ms ?? base.p99Ms,
    errorRate: t?.error_rate ?? base.errorRate,
    minRps: t?.min_rps ?? base.minRps,
  };
}

function buildPlan(c: LoadConfig, configPath: string, src: YamlSource, issues: ConfigIssue[]): LoadPlan {
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
  const compile = (value: unknown, path: ConfigPath) => {
    const problems: TemplateProblem[] = [];
    const renderer = compileTemplate(value, faker, c.seed, problems);
    for (const p of problems) issues.push(src.issue('unknown_template', [...path, ...p.path], p.message));
    return renderer;
  };
  const thresholds = thresholdsOf(c.thresholds, DEFAULT_THRESHOLDS);
  const auth = authOf(c.auth, ['auth']);
  const seen = new Map<string, number>();
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
    if (t.type === 'doctype') {
      return {
        ...common,
        type: 'doctype',
        // The data API answers 200 (201 for a create, 204 for a delete are accepted too).
        expectStatus: [200, 201, 204],
        doctype: t.name,
        mix: normalizeMix(t.mix),
        filters: t.filters ? compile(t.filters, [...path, 'filters']) : undefined,
        overrides: t.payload_overrides
          ? compile(t.payload_overrides, [...path, 'payload_overrides'])
          : undefined,
      };
    }
    if (t.type === 'endpoint') {
      return {
        ...common,
        type: 'endpoint',
        expectStatus: t.expect_status,
        method: t.method,
        path: compile(t.path, [...path, 'path']),
        headers: compile(t.headers ?? {}, [...path, 'headers']),
        body: t.body ? compile(t.body, [...path, 'body']) : undefined,
        bodyFactory: t.body_factory ? moduleRef(t.body_factory, [...path, 'body_factory']) : undefined,
      };
    }
    return {
      ...common,
      type: 'rpc',
      expectStatus: t.expect_status,
      method: t.method,
      args: t.args ? compile(t.args, [...path, 'args']) : undefined,
      kwargs: t.kwargs ? compile(t.kwargs, [...path, 'kwargs']) : undefined,
    };
  });
  const u = c.users;
  // spawn_rate wins over ramp_up_seconds when both are given (docs/load-testing.md).
  const spawnRate =
    u.spawn_rate ?? (u.ramp_up_seconds ? u.peak / u.ramp_up_seconds : Number.POSITIVE_INFINITY);
  const think = u.think_time_seconds ?? 0;
  const rate =
    c.rate?.requests_per_second ?? (c.rate?.requests_per_minute ? c.rate.requests_per_minute / 60 : 0);
  return {
    configPath,
    targetUrl: c.target_url.replace(/\/+$/, ''),
    hostHeader: u.host,
    durationSeconds: c.duration_seconds,
    users: {
      peak: u.peak,
      spawnRate,
      rampUpSeconds: Number.isFinite(spawnRate) ? u.peak / spawnRate : 0,
      thinkTime: typeof think === 'number' ? [think, think] : think,
    },
    model: c.rate ? { kind: 'open', ratePerSecond: rate } : { kind: 'closed' },
    seed: c.seed,
    auth,
    scenarios,
    thresholds,
    generator: {
      workers: c.generator.workers,
      maxEventLoopLagMs: c.generator.max_event_loop_lag_ms,
      minAchievedRate: c.generator.min_achieved_rate,
    },
    http: {
      timeoutMs: c.http.timeout_seconds * 1000,
      connections: c.http.connections ?? Math.min(u.peak, 512),
    },
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
