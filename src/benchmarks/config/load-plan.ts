import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { loadFakerFor } from '../template/faker-source';
import { buildPlan } from './build-plan';
import { crossKeyIssues } from './cross-keys';
import { checkInlineSecrets, referencedEnv, substituteEnv } from './env';
import { type ConfigIssue, type ConfigPath, sortIssues, YamlSource } from './issues';
import type { LoadPlan, PlanOverridesShape, PlanSource } from './plan';
import { loadConfigSchema } from './schema';

/** Command-line overrides applied before validation (so they are validated like the file). */
export type PlanOverrides = PlanOverridesShape;

/** Result of loading a config: a plan, or every problem found. */
export type PlanResult = { ok: true; plan: LoadPlan } | { ok: false; issues: ConfigIssue[] };

/** How a plan is loaded. */
export interface LoadOptions {
  /**
   * Dry run: a secret (an auth `password`, `key` or `token`) whose variable is unset renders as a
   * placeholder instead of being a problem, so a plan can be previewed without its credentials.
   */
  placeholders?: boolean;
  /** Data files already read (absolute path -> text): a generator thread's copy reads nothing. */
  files?: Record<string, string>;
}

/** Reads and validates a load-test file (the only place the harness reads it). */
export async function loadPlanFile(
  configPath: string,
  env: Record<string, string | undefined> = process.env,
  overrides: PlanOverrides = {},
  options: LoadOptions = {},
): Promise<PlanResult> {
  const text = await readFile(configPath, 'utf8');
  await loadFakerFor(text, env);
  return loadPlan(text, configPath, env, overrides, options);
}

/**
 * Validates a load-test YAML text into a {@link LoadPlan}. Every problem is collected before returning,
 * each with its YAML line and column: syntax errors, schema errors (types, unknown and missing keys),
 * inline secrets, unset environment variables, unknown templates, duplicate scenario names and factory
 * modules that do not exist. The plan keeps its exact inputs (`plan.source`) for generator threads. A
 * plan whose text or variables name faker is compiled after `loadFakerFor` (as {@link loadPlanFile} does).
 */
export function loadPlan(
  text: string,
  configPath: string,
  env: Record<string, string | undefined> = process.env,
  overrides: PlanOverrides = {},
  options: LoadOptions = {},
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
  const substituted = substituteEnv(raw, env, src, issues, [], options.placeholders) as Record<
    string,
    unknown
  >;
  applyOverrides(substituted, overrides);
  issues.push(...crossKeyIssues(substituted, src));
  const parsed = loadConfigSchema.safeParse(substituted);
  if (!parsed.success) issues.push(...zodIssues(parsed.error.issues, substituted, src));
  if (!parsed.success || issues.length > 0) return { ok: false, issues: sortIssues(issues) };
  const source: PlanSource = {
    text,
    env: referencedEnv(raw, env),
    overrides: { ...overrides },
    placeholders: options.placeholders || undefined,
    files: { ...options.files },
  };
  const plan = buildPlan(parsed.data, source, configPath, src, issues);
  return issues.length > 0 ? { ok: false, issues: sortIssues(issues) } : { ok: true, plan };
}

/**
 * Compiles a plan again from the inputs the main thread validated (a generator thread's copy): the same
 * text, variables and overrides, so the same plan; nothing is read from disk.
 */
export async function planFromSource(source: PlanSource, configPath: string): Promise<LoadPlan> {
  await loadFakerFor(source.text, source.env);
  const r = loadPlan(source.text, configPath, source.env, source.overrides, {
    placeholders: source.placeholders,
    files: source.files,
  });
  if (!r.ok) throw new Error(`the validated plan no longer compiles: ${r.issues[0]?.message}`);
  return r.plan;
}

function applyOverrides(raw: Record<string, unknown>, o: PlanOverrides) {
  const obj = (key: string) => {
    const v = raw[key];
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    const fresh: Record<string, unknown> = {};
    raw[key] = fresh;
    return fresh;
  };
  if (o.targetUrl !== undefined) raw.target_url = o.targetUrl;
  // With stages, --duration cuts (or extends) the run without replacing them: it is applied to the plan.
  const staged = [raw.users, raw.rate].some((b) => (b as { stages?: unknown } | undefined)?.stages);
  if (o.durationSeconds !== undefined && !staged) raw.duration_seconds = o.durationSeconds;
  if (o.users !== undefined) overrideUsers(obj('users'), o.users);
  if (o.workers !== undefined) obj('generator').workers = o.workers;
}

/**
 * `--users n`: `users.peak` becomes n; with `users.stages` (where the peak is the highest stage), every
 * stage target is scaled by n / that peak and rounded, so the run keeps its shape and peaks at n users
 * (docs/load-testing.md#stages). Stages the schema will refuse are left for it to report.
 */
function overrideUsers(users: Record<string, unknown>, n: number): void {
  const stages = users.stages;
  const targets = Array.isArray(stages)
    ? stages.map((s) => (s as { target?: unknown } | null)?.target)
    : undefined;
  if (!targets || targets.length === 0 || !targets.every((t) => typeof t === 'number' && t >= 0)) {
    users.peak = n;
    return;
  }
  const peak = Math.max(...(targets as number[]));
  if (peak <= 0) return;
  users.stages = (stages as Array<Record<string, unknown>>).map((s) => ({
    ...s,
    target: Math.round(((s.target as number) * n) / peak),
  }));
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
    } else if (i.code === 'invalid_key') {
      // A record key that breaks its rule (a JSON path, a variable name): the rule's own message.
      const inner = (i as { issues?: Array<{ message?: string }> }).issues?.[0]?.message;
      out.push(src.issue('invalid_value', path, inner ?? i.message, true));
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
