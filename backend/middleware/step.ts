import type { Context, ErrorHandler, MiddlewareHandler, Next } from 'hono';
import type { AppEnv } from '../http/env';

/** What a step's {@link ChainStep.enter} decides: `undefined` goes on, a Response answers the request now. */
export type StepOutcome = Response | undefined;

/**
 * One middleware of the chain (docs/security.md#middleware-chain) as plain functions, so the whole chain can
 * run as one Hono middleware ({@link foldSteps}) that awaits only where a step waits for I/O.
 *
 * A step refuses a request by throwing a PlatformError (the app's error handler turns it into the one JSON
 * error shape) or by returning a Response; either way the later steps and the handler do not run.
 */
export interface ChainStep {
  /** The middleware's function name (`hostCheck`, `rateLimit`, ...). */
  readonly name: string;
  /**
   * Runs before the handler: synchronously where the step only reads the request line and headers, a
   * promise only where it waits for I/O (reading the body, decrypting it, a store).
   */
  enter(c: Context<AppEnv>): StepOutcome | Promise<StepOutcome>;
  /**
   * Runs after the handler and the later steps, for a request this step let through: `c.res` is the answer
   * (an error answer when a later step or the handler threw, with `c.error` set).
   */
  leave?(c: Context<AppEnv>): void | Promise<void>;
  /** Runs instead of {@link leave} when something later threw a value Hono does not turn into an answer. */
  abort?(c: Context<AppEnv>): void | Promise<void>;
}

/**
 * A step as a Hono middleware of its own: `enter`, then `next()`, then `leave` (the shape each middleware had
 * before the chain was folded; `middlewareChain` gives the chain in this form).
 */
export function stepMiddleware(step: ChainStep): MiddlewareHandler<AppEnv> {
  const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    const outcome = await step.enter(c);
    if (outcome !== undefined) return outcome;
    if (!step.leave && !step.abort) return next();
    try {
      await next();
    } catch (err) {
      await step.abort?.(c);
      throw err;
    }
    await step.leave?.(c);
  };
  Object.defineProperty(middleware, 'name', { value: step.name });
  return middleware;
}

/**
 * The steps, in the order given, as ONE Hono middleware. A request that no step has to wait for (a plaintext
 * GET or POST: the checks read only the request line and headers) runs them all as plain synchronous calls;
 * the middleware becomes asynchronous from the first step that returns a promise. No function is allocated
 * per request.
 *
 * The behaviour is that of the steps as separate middleware (`stepMiddleware`, composed by Hono): a step that
 * answers or throws stops the later ones, an error becomes an answer through `onError` (the app's error
 * handler) with `c.error` set, and every step already passed then runs its `leave` on that answer, last
 * first.
 */
export function foldSteps(
  steps: readonly ChainStep[],
  onError: ErrorHandler<AppEnv>,
  name = 'securityChain',
): MiddlewareHandler<AppEnv> {
  const count = steps.length;
  const leaving = steps.some((step) => step.leave !== undefined || step.abort !== undefined);

  /** The handler (and anything after this middleware), then every step's `leave`, last first. */
  async function around(c: Context<AppEnv>, next: Next): Promise<void> {
    try {
      await next();
    } catch (err) {
      await abortFrom(c, count);
      throw err;
    }
    // Awaited only when a leave returned a promise: `await undefined` would still cost a microtask.
    const left = leaveFrom(c, count);
    if (left !== undefined) await left;
  }

  /** Runs `leave` of the steps before `end`, last first; awaits only a `leave` that returns a promise. */
  function leaveFrom(c: Context<AppEnv>, end: number): void | Promise<void> {
    for (let i = end - 1; i >= 0; i--) {
      const left = steps[i]!.leave?.(c);
      if (left !== undefined) return left.then(() => leaveFrom(c, i));
    }
  }

  async function abortFrom(c: Context<AppEnv>, end: number): Promise<void> {
    for (let i = end - 1; i >= 0; i--) await steps[i]!.abort?.(c);
  }

  /** Step `index` answered: that is the request's answer; the steps before it leave. */
  async function answered(c: Context<AppEnv>, index: number, response: Response): Promise<Response> {
    c.res = response;
    await leaveFrom(c, index);
    return response;
  }

  /** Step `index` threw: the error handler's answer, as Hono's compose would make it, then the leaves. */
  async function failed(c: Context<AppEnv>, index: number, err: unknown): Promise<void> {
    if (!(err instanceof Error)) {
      await abortFrom(c, index);
      throw err;
    }
    c.error = err;
    c.res = await onError(err, c);
    await leaveFrom(c, index);
  }

  /** Goes on from step `index`, whose enter returned `pending`. */
  async function resume(
    c: Context<AppEnv>,
    next: Next,
    index: number,
    pending: Promise<StepOutcome>,
  ): Promise<Response | undefined> {
    let i = index;
    let outcome: StepOutcome;
    try {
      outcome = await pending;
      while (outcome === undefined && ++i < count) {
        const entered = steps[i]!.enter(c);
        outcome = entered instanceof Promise ? await entered : entered;
      }
    } catch (err) {
      await failed(c, i, err);
      return;
    }
    if (outcome !== undefined) return answered(c, i, outcome);
    if (leaving) await around(c, next);
    else await next();
  }

  const chain: MiddlewareHandler<AppEnv> = (c, next) => {
    for (let i = 0; i < count; i++) {
      let outcome: StepOutcome | Promise<StepOutcome>;
      try {
        outcome = steps[i]!.enter(c);
      } catch (err) {
        return failed(c, i, err);
      }
      if (outcome === undefined) continue;
      if (outcome instanceof Promise) return resume(c, next, i, outcome);
      return answered(c, i, outcome);
    }
    return leaving ? around(c, next) : next();
  };
  Object.defineProperty(chain, 'name', { value: name });
  return chain;
}
