import type { CaptureConfig, ExpectConfig } from '../config/schema-expect';
import type { HttpResponse } from '../engine/http-message';
import type { RenderContext, Renderer } from '../template/template';
import { jsonType, parseJsonPath, valueAtPath } from './json-path';

/**
 * One compiled check of a response: its stable name (how it is counted in results and reports) and a
 * test returning why it failed, or undefined when it passed.
 */
export interface Check {
  name: string;
  test(res: HttpResponse, body: () => unknown, latencyMs: number, ctx?: RenderContext): string | undefined;
}

/**
 * Compiles an expected value that may hold templates (`equals: "{{ vars.customer }}"`), at its place in
 * the YAML (`json`/`headers`, then the key) so problems point there.
 */
export type CompileExpected = (value: unknown, path: (string | number)[]) => Renderer;

/** The checks of one scenario or step: the accepted statuses apart (429/503 outside them are throttling). */
export interface CheckPlan {
  status: number[];
  /** Checks beyond the status, run only when the status is accepted. */
  more: Check[];
}

/** A compiled value assertion. */
type ValueTest = (present: boolean, v: unknown, ctx?: RenderContext) => string | undefined;

const show = (v: unknown) => (v === undefined ? 'nothing' : (JSON.stringify(v)?.slice(0, 80) ?? String(v)));

function valueTest(
  spec: unknown,
  compile: CompileExpected | undefined,
  path: (string | number)[],
): { describe: string; test: ValueTest } {
  const scalar = spec === null || typeof spec !== 'object';
  if (scalar) spec = { equals: spec };
  const c = spec as { equals?: unknown; matches?: string; exists?: boolean; type?: string };
  const parts: string[] = [];
  const tests: ValueTest[] = [];
  if (c.exists !== undefined) {
    parts.push(c.exists ? 'exists' : 'absent');
    tests.push((present, v) =>
      present === c.exists ? undefined : c.exists ? 'missing' : `present (${show(v)})`,
    );
  }
  if ('equals' in c) {
    const text = JSON.stringify(c.equals);
    parts.push(`equals ${text}`);
    if (compile && text.includes('{{')) {
      // Rendered per response: a captured variable, or seed data.
      const want = compile(c.equals, scalar ? path : [...path, 'equals']);
      tests.push((_, v, ctx) => {
        const w = JSON.stringify(want(ctx));
        return JSON.stringify(v) === w ? undefined : `expected ${w}, got ${show(v)}`;
      });
    } else {
      tests.push((_, v) => (JSON.stringify(v) === text ? undefined : `expected ${text}, got ${show(v)}`));
    }
  }
  if (c.matches !== undefined) {
    const re = new RegExp(c.matches);
    parts.push(`matches /${c.matches}/`);
    tests.push((_, v) => {
      const text = typeof v === 'string' ? v : v === undefined ? undefined : JSON.stringify(v);
      return text !== undefined && re.test(text) ? undefined : `${show(v)} does not match /${c.matches}/`;
    });
  }
  if (c.type !== undefined) {
    parts.push(`is ${c.type}`);
    tests.push((_, v) => (jsonType(v) === c.type ? undefined : `expected ${c.type}, got ${jsonType(v)}`));
  }
  return {
    describe: parts.join(', '),
    test: (present, v, ctx) => {
      for (const t of tests) {
        const why = t(present, v, ctx);
        if (why) return why;
      }
      return undefined;
    },
  };
}

/**
 * Compiles an `expect:` block. `defaultStatus` applies when it names no status (`expect_status`, the
 * older spelling, is passed the same way); `compile` renders expected values holding templates.
 */
export function compileChecks(
  e: ExpectConfig | undefined,
  defaultStatus: number[],
  compile?: CompileExpected,
): CheckPlan {
  const status = e?.status === undefined ? defaultStatus : Array.isArray(e.status) ? e.status : [e.status];
  const more: Check[] = [];
  for (const [path, spec] of Object.entries(e?.json ?? {})) {
    const keys = parseJsonPath(path);
    const v = valueTest(spec, compile, ['json', path]);
    more.push({
      name: `json ${path} ${v.describe}`,
      test: (_res, body, _ms, ctx) => {
        const root = body();
        if (root === undefined) return 'the body is not JSON';
        const value = valueAtPath(root, keys);
        const why = v.test(value !== undefined, value, ctx);
        return why && `${path}: ${why}`;
      },
    });
  }
  for (const [name, spec] of Object.entries(e?.headers ?? {})) {
    const header = name.toLowerCase();
    const v = valueTest(spec, compile, ['headers', name]);
    more.push({
      name: `header ${header} ${v.describe}`,
      test: (res, _body, _ms, ctx) => {
        const raw = res.headers[header];
        const value = Array.isArray(raw) ? raw.join(', ') : raw;
        const why = v.test(value !== undefined, value, ctx);
        return why && `${header}: ${why}`;
      },
    });
  }
  if (e?.max_ms !== undefined) {
    const limit = e.max_ms;
    more.push({
      name: `max_ms ${limit}`,
      test: (_res, _body, ms) => (ms <= limit ? undefined : `took ${ms.toFixed(1)} ms (limit ${limit})`),
    });
  }
  return { status, more };
}

/** Name of the status check in results. */
export function statusCheckName(plan: CheckPlan): string {
  return `status in [${plan.status.join(', ')}]`;
}

/** A compiled capture: variable name and how to read it from a response. */
export interface Capture {
  name: string;
  /** Where the value comes from, for messages: `json data.name` or `header etag`. */
  from: string;
  read(res: HttpResponse, body: () => unknown): unknown;
}

/** Compiles a `capture:` block. */
export function compileCaptures(c: CaptureConfig | undefined): Capture[] {
  return Object.entries(c ?? {}).map(([name, spec]) => {
    if ('json' in spec) {
      const keys = parseJsonPath(spec.json);
      return { name, from: `json ${spec.json}`, read: (_res, body) => valueAtPath(body(), keys) };
    }
    const header = spec.header.toLowerCase();
    return {
      name,
      from: `header ${header}`,
      read: (res) => {
        const v = res.headers[header];
        return Array.isArray(v) ? v[0] : v;
      },
    };
  });
}
