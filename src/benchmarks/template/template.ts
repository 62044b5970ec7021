import type { Faker } from '@faker-js/faker';
import { resolveFakerPath } from './faker-path';

/**
 * Values known only while a user runs: `vars` captured by earlier steps of a flow, `data` the current row
 * of a data feeder. Absent outside flows and feeders.
 */
export interface RenderContext {
  vars?: Record<string, unknown>;
  data?: Record<string, unknown>;
}

/**
 * A compiled value tree: renders to plain JSON values on every call. Faker and the seed data are bound at
 * compile time; seeding that faker instance (`faker.seed(n)`) makes renders reproducible (dry run).
 */
export type Renderer = (ctx?: RenderContext) => unknown;

/**
 * Names a template may use besides faker and seed: `vars` the variables captured before this point of a
 * flow, `data` the columns of the data feeder (undefined: no feeder, so `data.*` is refused).
 */
export interface TemplateScope {
  vars?: ReadonlySet<string>;
  data?: ReadonlySet<string>;
}

/** A problem found while compiling templates; `path` is relative to the compiled value. */
export interface TemplateProblem {
  path: (string | number)[];
  message: string;
}

const EXPR = /\{\{\s*(.*?)\s*\}\}/g;
const WHOLE = /^\{\{\s*(.*?)\s*\}\}$/;
const CALL = /^faker\.([A-Za-z0-9.]+?)(?:\((.*)\))?$/s;
const SEED = /^seed\.([A-Za-z0-9_.-]+)$/;
const RUNTIME = /^(vars|data)\.([A-Za-z_][A-Za-z0-9_-]*)$/;

type Piece = (ctx?: RenderContext) => unknown;

/**
 * Compiles one `{{ ... }}` expression: `faker.<module>.<method>` with optional JSON arguments
 * (`{{ faker.number.int({"max": 99}) }}`), or `seed.<key>` with dotted keys and list indexes
 * (`{{ seed.warehouses.0 }}`). Anything else is a problem: templates are looked up, never evaluated.
 */
function compileExpression(
  expr: string,
  faker: Faker | undefined,
  seed: Record<string, unknown>,
  scope: TemplateScope,
): Piece | string {
  const call = CALL.exec(expr);
  if (call) {
    const gen = faker && resolveFakerPath(faker, call[1]!);
    if (!gen) return `"faker.${call[1]}" is not a faker generator (e.g. faker.person.fullName)`;
    let args: unknown[] = [];
    if (call[2]?.trim()) {
      try {
        args = JSON.parse(`[${call[2]}]`) as unknown[];
      } catch {
        return `arguments of faker.${call[1]} must be JSON values`;
      }
    }
    return () => gen(...args);
  }
  const s = SEED.exec(expr);
  if (s) {
    const keys = s[1]!.split('.');
    const value = lookup(seed, keys);
    if (value === undefined) return `seed has no key "${s[1]}"`;
    return () => lookup(seed, keys);
  }
  const r = RUNTIME.exec(expr);
  if (r) {
    const [, kind, name] = r as unknown as [string, 'vars' | 'data', string];
    if (kind === 'vars') {
      if (!scope.vars) return `{{ vars.${name} }} is only available in the steps of a flow`;
      if (!scope.vars.has(name)) return `vars.${name} is not captured by an earlier step of this flow`;
    } else {
      if (!scope.data) return `{{ data.${name} }} needs a data feeder (data: { file: ... })`;
      if (!scope.data.has(name)) return `the data file has no column "${name}"`;
    }
    return (ctx) => ctx?.[kind]?.[name];
  }
  return `unknown template "{{ ${expr} }}": use faker.<module>.<method>, seed.<key>, vars.<name> or data.<column>`;
}

function lookup(root: unknown, keys: string[]): unknown {
  let cur = root;
  for (const k of keys) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, k)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/** Renderers of values without any template, with the value they always render. */
const constants = new WeakMap<Renderer, unknown>();

/** Registers `r` as always rendering `value`. */
function constant(r: Renderer, value: unknown): Renderer {
  constants.set(r, value);
  return r;
}

/**
 * Whether `r` renders the same value every time (a value tree without templates), and that value: a
 * caller that never changes it may compute what it derives from it once, not per request.
 */
export function constantOf(r: Renderer): { value: unknown } | undefined {
  return constants.has(r) ? { value: constants.get(r) } : undefined;
}

/**
 * Compiles a value tree (strings, lists, objects) once. A string that is one whole template keeps the
 * rendered type (`"{{ faker.number.int }}"` renders a number); mixed strings render as text.
 */
export function compileTemplate(
  value: unknown,
  /** Undefined for a plan that names no faker generator (faker is loaded only when one does). */
  faker: Faker | undefined,
  seed: Record<string, unknown>,
  problems: TemplateProblem[],
  path: (string | number)[] = [],
  scope: TemplateScope = {},
): Renderer {
  if (typeof value === 'string') {
    if (!value.includes('{{')) return constant(() => value, value);
    const whole = WHOLE.exec(value);
    if (whole && !whole[1]!.includes('}}')) {
      const piece = compileExpression(whole[1]!, faker, seed, scope);
      if (typeof piece === 'string') {
        problems.push({ path, message: piece });
        return () => value;
      }
      return piece;
    }
    const parts: Array<string | Piece> = [];
    let last = 0;
    for (const m of value.matchAll(EXPR)) {
      parts.push(value.slice(last, m.index));
      const piece = compileExpression(m[1]!, faker, seed, scope);
      if (typeof piece === 'string') problems.push({ path, message: piece });
      else parts.push(piece);
      last = m.index + m[0].length;
    }
    parts.push(value.slice(last));
    return (ctx) => parts.map((p) => (typeof p === 'string' ? p : String(p(ctx)))).join('');
  }
  if (Array.isArray(value)) {
    const items = value.map((v, i) => compileTemplate(v, faker, seed, problems, [...path, i], scope));
    const render: Renderer = (ctx) => items.map((r) => r(ctx));
    return items.every((r) => constants.has(r)) ? constant(render, render()) : render;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).map(
      ([k, v]) => [k, compileTemplate(v, faker, seed, problems, [...path, k], scope)] as const,
    );
    const render: Renderer = (ctx) => Object.fromEntries(entries.map(([k, r]) => [k, r(ctx)]));
    return entries.every(([, r]) => constants.has(r)) ? constant(render, render()) : render;
  }
  return constant(() => value, value);
}
