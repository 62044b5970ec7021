import type { Context } from 'hono';
import type { AppEnv } from '../http/env';
import { requestHeader } from '../http/node-request';
import { SYSTEM_MANAGER } from '../permissions/model';
import type { ChainStep } from './step';

/** The request header a caller sets to `1` to ask for the `Server-Timing` answer header. */
export const TIMING_REQUEST_HEADER = 'x-platform-timing';

/**
 * The `Server-Timing` metric name and description of each step of the middleware chain
 * (docs/security.md#middleware-chain). Steps not listed are timed under their own name.
 */
const STAGES: Readonly<Record<string, { name: string; desc: string }>> = {
  hostCheck: { name: 'host', desc: 'Host check' },
  requestTarget: { name: 'target', desc: 'Request target' },
  rateLimit: { name: 'ratelimit', desc: 'Rate limit' },
  bodyLimit: { name: 'body', desc: 'Body limit' },
  payloadDecryption: { name: 'decrypt', desc: 'Payload decryption' },
  csrf: { name: 'csrf', desc: 'CSRF' },
  idempotency: { name: 'idempotency', desc: 'Idempotency' },
  auth: { name: 'auth', desc: 'Authentication' },
};

/** One timed stage: a metric name, its description and its duration in ms. */
interface Stage {
  name: string;
  desc: string;
  ms: number;
  /** Reported by the handler ({@link timeStage}): its time is listed apart from `app`, not inside it. */
  reported: boolean;
}

/** The stages of one request being timed, in the order they ran. */
class RequestTiming {
  readonly started = performance.now();
  /** When the chain let the request through to its handler. */
  chainDone = 0;
  readonly stages: Stage[] = [];

  add(name: string, desc: string, ms: number, reported = false): void {
    const same = this.stages.find((s) => s.name === name);
    if (same) same.ms += ms;
    else this.stages.push({ name, desc, ms, reported });
  }
}

/** The timing of the requests being timed; a request nobody asked to time has none and costs nothing. */
const timings = new WeakMap<Request, RequestTiming>();

/**
 * Times `work` as stage `name` of the request (`desc` describes it), when the request is being timed:
 * for handlers to report their own stages (permissions, database, a forward to a service). `work` may be
 * synchronous or return a promise; its result (or throw) is passed on unchanged. Several calls under one
 * name add up. Without timing it costs one lookup and one branch, then only runs `work`: no promise of
 * its own, so a synchronous check stays synchronous.
 *
 * @example
 * const page = await timeStage(c, 'db', 'Database', () => store.list(doctype, query));
 */
export function timeStage<T>(c: Context<AppEnv>, name: string, desc: string, work: () => T): T {
  const timing = timings.get(c.req.raw);
  if (!timing) return work();
  const start = performance.now();
  const done = () => timing.add(name, desc, performance.now() - start, true);
  let outcome: T;
  try {
    outcome = work();
  } catch (err) {
    done();
    throw err;
  }
  if (outcome instanceof Promise) return outcome.finally(done) as T;
  done();
  return outcome;
}

/** Options of {@link serverTimingStep}. */
export interface ServerTimingOptions {
  /** Time every System Manager's requests without being asked (the operator's setting). */
  always?: boolean;
}

/** Whether the caller is a System Manager: only they may see how the server spends its time. */
function isSystemManager(c: Context<AppEnv>): boolean {
  return c.get('principal')?.roles?.includes(SYSTEM_MANAGER) === true;
}

/** `host;dur=0.012;desc="Host check", ...` (durations in ms, three decimals). */
function headerValue(timing: RequestTiming): string {
  return timing.stages.map((s) => `${s.name};dur=${s.ms.toFixed(3)};desc="${s.desc}"`).join(', ');
}

/**
 * The first step of the chain: starts timing a request that asks for it (`X-Platform-Timing: 1`, or every
 * request when the operator enabled it), and on the way out adds `Server-Timing` with each stage, the
 * handler (`app`, less the stages it reported itself, which are listed apart) and the total, if the caller
 * turned out to be a System Manager. Anyone else gets no header: the durations tell how a request was handled
 * (which credential check ran, whether a key was found).
 */
export function serverTimingStep(options: ServerTimingOptions = {}): ChainStep {
  return {
    name: 'serverTiming',
    enter(c) {
      // Read from node:http's own fields: `c.req.raw.headers` would build a Fetch `Headers` copy of every
      // field on each request only to look at one.
      if (options.always || requestHeader(c, TIMING_REQUEST_HEADER) === '1') {
        timings.set(c.req.raw, new RequestTiming());
      }
      return undefined;
    },
    leave(c) {
      const timing = timings.get(c.req.raw);
      if (!timing || !isSystemManager(c)) return;
      const now = performance.now();
      if (timing.chainDone > 0) {
        const own = timing.stages.filter((s) => s.reported);
        const handler = now - timing.chainDone - own.reduce((sum, s) => sum + s.ms, 0);
        timing.add('app', 'Handler', Math.max(0, handler));
      }
      timing.add('total', 'Total', now - timing.started);
      try {
        c.res.headers.append('Server-Timing', headerValue(timing));
      } catch {
        // A response passed on from fetch (a forward to a service) has immutable headers: copy it.
        const copy = new Response(c.res.body, c.res);
        copy.headers.append('Server-Timing', headerValue(timing));
        c.res = copy;
      }
    },
  };
}

/**
 * The chain's steps with Server-Timing: {@link serverTimingStep} first, then each step timed as its stage
 * (docs/performance.md#where-a-request-spends-its-time).
 */
export function withServerTiming(
  steps: readonly ChainStep[],
  options: ServerTimingOptions = {},
): ChainStep[] {
  return [serverTimingStep(options), ...steps.map((step, i) => timedStep(step, i === steps.length - 1))];
}

/**
 * `step` timed as its stage when the request is being timed: its `enter` only (its `leave` is part of the
 * handler's time). `last` marks the chain's last step, whose end is the start of the handler.
 */
function timedStep(step: ChainStep, last: boolean): ChainStep {
  const stage = STAGES[step.name] ?? { name: step.name, desc: step.name };
  const timed: ChainStep = {
    name: step.name,
    enter(c) {
      const timing = timings.get(c.req.raw);
      if (!timing) return step.enter(c);
      const start = performance.now();
      const done = () => {
        const end = performance.now();
        timing.add(stage.name, stage.desc, end - start);
        if (last) timing.chainDone = end;
      };
      let outcome: ReturnType<ChainStep['enter']>;
      try {
        outcome = step.enter(c);
      } catch (err) {
        done();
        throw err;
      }
      if (outcome instanceof Promise) {
        return outcome.then(
          (value) => {
            done();
            return value;
          },
          (err: unknown) => {
            done();
            throw err;
          },
        );
      }
      done();
      return outcome;
    },
  };
  // Only the hooks the step has: the folded chain skips its leave phase when no step has one.
  if (step.leave) timed.leave = (c) => step.leave!(c);
  if (step.abort) timed.abort = (c) => step.abort!(c);
  return timed;
}
