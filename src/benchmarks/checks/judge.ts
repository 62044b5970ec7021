import { jsonOf } from '../engine/http-client';
import type { HttpResponse } from '../engine/http-message';
import { classify, type Outcome } from '../engine/outcome';
import type { RenderContext } from '../template/template';
import { type CheckPlan, statusCheckName } from './checks';

/** A failed check: its name (the counter it adds to) and why. */
export interface CheckFailure {
  check: string;
  reason: string;
}

/** How a response counts, and the checks it failed. */
export interface Judgement {
  readonly outcome: Exclude<Outcome, 'error'>;
  readonly failures: readonly CheckFailure[];
}

const NONE: readonly CheckFailure[] = Object.freeze([]);
const OK: Judgement = Object.freeze({ outcome: 'ok', failures: NONE });
const THROTTLED: Judgement = Object.freeze({ outcome: 'throttled', failures: NONE });

/** The error code of a platform error body (`{ "error": { "code": ... } }`), if any. */
function errorCodeOf(res: HttpResponse, body: () => unknown): string | undefined {
  if (res.status < 400) return undefined;
  const code = (body() as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Judges a response against its checks. The status comes first: a status outside the accepted ones is a
 * failure (or throttling for 429/503), and the other checks are not run on such a response, whose body
 * is an error; with an accepted status, every other check runs and each failure is reported. The body is
 * parsed at most once, and only when a check needs it.
 */
export function judge(plan: CheckPlan, res: HttpResponse, latencyMs: number, ctx?: RenderContext): Judgement {
  const outcome = classify(res.status, plan.status);
  // Most responses of a run take one of these two returns: nothing allocated for them.
  if (outcome === 'throttled') return THROTTLED;
  if (outcome === 'ok' && plan.more.length === 0) return OK;
  let parsed: { v: unknown } | undefined;
  const body = () => {
    parsed ??= { v: jsonOf(res) };
    return parsed.v;
  };
  if (outcome === 'failed') {
    const code = errorCodeOf(res, body);
    return {
      outcome,
      failures: [{ check: statusCheckName(plan), reason: `got ${res.status}${code ? ` (${code})` : ''}` }],
    };
  }
  const failures: CheckFailure[] = [];
  for (const c of plan.more) {
    const reason = c.test(res, body, latencyMs, ctx);
    if (reason) failures.push({ check: c.name, reason });
  }
  return { outcome: failures.length > 0 ? 'failed' : 'ok', failures };
}
