import { sha256 } from './digest';
import type { AttemptState, AttemptStore } from './login-attempts';

/** Settings of {@link LoginThrottle} (docs/security.md#login-throttling). */
export interface LoginThrottleOptions {
  store: AttemptStore;
  /**
   * Failed sign-ins of one account from one client address within `windowMs` before that address is locked
   * out of that account. Default 5.
   */
  maxFailures?: number;
  /**
   * Failed sign-ins of one account from all addresses together within `windowMs` before the account is locked
   * everywhere: the slower ceiling on guessing spread over many addresses. Default 100.
   */
  maxAccountFailures?: number;
  /** Failed sign-ins from one client address within `windowMs` before it is locked. Default 50. */
  maxAddressFailures?: number;
  /** The window failures are counted in. Default 15 minutes. */
  windowMs?: number;
  /** The first lock-out; each further failure doubles it. Default 60 s. */
  lockMs?: number;
  /** The longest lock-out. Default 15 minutes. */
  maxLockMs?: number;
  /**
   * How long the refusal of a locked sign-in is held before it is answered ({@link LoginThrottle.holdRefusal}).
   * Default 1 s.
   */
  refusalHoldMs?: number;
  /** The most refusals held at once; those beyond are answered at once. Default 1,024. */
  maxHeldRefusals?: number;
  now?: () => number;
  /** Waits `ms` or until `signal` aborts (default: a timer). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The settings of how refusals of locked sign-ins are held ({@link LoginThrottle.holdRefusal}). */
export type LoginRefusalHold = Pick<LoginThrottleOptions, 'refusalHoldMs' | 'maxHeldRefusals' | 'sleep'>;

/**
 * A timer that ends early, without an error, when `signal` aborts. Written with the web's timers, not
 * `node:timers/promises`: this module also runs in the browser, in the offline mocks' backend.
 */
function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The outcome of {@link LoginThrottle.begin}. */
export type ThrottleDecision =
  | { allowed: true; attempt: LoginAttempt }
  | { allowed: false; retryAfterSeconds: number };

/** An admitted sign-in attempt: report its outcome once. */
export interface LoginAttempt {
  /** The password was right: the failures of this account from this address are forgotten. */
  succeeded(): Promise<void>;
  /** The password was wrong: counted against the account from this address, the account, and the address. */
  failed(): Promise<void>;
}

// Hashed: key-value keys allow few characters, and a user name never leaves the process in the clear.
const key = (kind: 'pair' | 'account' | 'address', value: string) =>
  `${kind}.${sha256(value).replace(/[^A-Za-z0-9]/g, '')}`;

/**
 * Login throttling (docs/security.md#login-throttling) with three counters, each locking for `lockMs` once at
 * its limit within the window, doubled for every further failure up to `maxLockMs`; while locked, every
 * sign-in it covers is refused before any password is checked, the right one included:
 * - one account from one client address (`maxFailures`): someone guessing a password is stopped, and only
 *   from where they guess, so a stranger cannot lock the owner (or Administrator) out from elsewhere;
 * - one account from every address (`maxAccountFailures`, far higher): a guess spread over many addresses
 *   is still bounded;
 * - one address across every account (`maxAddressFailures`): one client trying many accounts is stopped
 *   while other clients are not.
 * A success clears only its account-and-address counter (a success must not reset the ceilings a spread
 * attack is counted against). Only failures count: many users signing in at once from one address (an
 * office, a load test) are never throttled. Accounts are counted regardless of case.
 */
export class LoginThrottle {
  readonly #store: AttemptStore;
  readonly #maxFailures: number;
  readonly #maxAddressFailures: number;
  readonly #maxAccountFailures: number;
  readonly #windowMs: number;
  readonly #lockMs: number;
  readonly #maxLockMs: number;
  readonly #now: () => number;
  readonly #refusalHoldMs: number;
  readonly #maxHeldRefusals: number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #queues = new Map<string, Promise<unknown>>();
  #held = 0;

  constructor(options: LoginThrottleOptions) {
    this.#store = options.store;
    this.#maxFailures = options.maxFailures ?? 5;
    this.#maxAddressFailures = options.maxAddressFailures ?? 50;
    this.#maxAccountFailures = options.maxAccountFailures ?? 100;
    this.#windowMs = options.windowMs ?? 15 * 60_000;
    this.#lockMs = options.lockMs ?? 60_000;
    this.#maxLockMs = options.maxLockMs ?? 15 * 60_000;
    this.#now = options.now ?? Date.now;
    this.#refusalHoldMs = options.refusalHoldMs ?? 1000;
    this.#maxHeldRefusals = options.maxHeldRefusals ?? 1024;
    this.#sleep = options.sleep ?? sleepUnlessAborted;
  }

  /**
   * Holds the refusal of a locked sign-in for `refusalHoldMs` before it is answered (a tarpit): a client
   * that guesses as fast as the server answers gets one refusal per connection per hold, so a flood of
   * guesses at a locked account costs the server a timer per connection instead of a request per
   * millisecond, and other users' requests are not slowed. Nobody waiting for a refusal loses anything: the
   * lock-out it reports lasts a minute or more. Held outside {@link oneAtATime}, so the owner's sign-in from
   * another address never queues behind a stranger's refusals; ends early when the client disconnects
   * (`signal`); beyond `maxHeldRefusals` at once, a refusal is answered at once, so holding cannot grow the
   * process's memory without bound.
   */
  async holdRefusal(signal?: AbortSignal): Promise<void> {
    if (this.#held >= this.#maxHeldRefusals) return;
    this.#held++;
    try {
      await this.#sleep(this.#refusalHoldMs, signal);
    } finally {
      this.#held--;
    }
  }

  /**
   * Runs the sign-ins of one account one after another in this process. A burst of concurrent guesses then
   * costs at most `maxFailures` password checks before the lock-out answers the rest at once; sign-ins of
   * other accounts are not held up, and the hash gate bounds the checks in flight anyway.
   */
  async oneAtATime<T>(account: string, work: () => Promise<T>): Promise<T> {
    const queueKey = account.toLowerCase();
    const previous = this.#queues.get(queueKey) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.catch(() => {});
    this.#queues.set(queueKey, tail);
    try {
      return await run;
    } finally {
      if (this.#queues.get(queueKey) === tail) this.#queues.delete(queueKey);
    }
  }

  /** Admits a sign-in attempt for `account` from `address`, or refuses it with the seconds to wait. */
  async begin(account: string, address: string): Promise<ThrottleDecision> {
    const name = account.toLowerCase();
    const pairKey = key('pair', `${name}\n${address}`);
    const accountKey = key('account', name);
    const addressKey = key('address', address);
    const now = this.#now();
    const states = await Promise.all([
      this.#store.get(pairKey),
      this.#store.get(accountKey),
      this.#store.get(addressKey),
    ]);
    const lockedUntil = Math.max(...states.map((state) => state?.lockedUntil ?? 0));
    if (lockedUntil > now) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((lockedUntil - now) / 1000)) };
    }
    let reported = false;
    return {
      allowed: true,
      attempt: {
        succeeded: async () => {
          if (reported) return;
          reported = true;
          if (states[0]) await this.#store.change(pairKey, () => undefined);
        },
        failed: async () => {
          if (reported) return;
          reported = true;
          await this.#store.change(pairKey, this.#count(this.#maxFailures));
          await this.#store.change(accountKey, this.#count(this.#maxAccountFailures));
          await this.#store.change(addressKey, this.#count(this.#maxAddressFailures));
        },
      },
    };
  }

  /** Counts one failure; at `limit` and beyond, locks for the doubling lock-out. */
  #count(limit: number) {
    return (current: AttemptState | undefined): AttemptState => {
      const now = this.#now();
      const state = this.#live(current, now);
      const failures = state.failures + 1;
      const lockedUntil =
        failures >= limit ? now + Math.min(this.#lockMs * 2 ** (failures - limit), this.#maxLockMs) : 0;
      return { failures, firstAt: state.failures === 0 ? now : state.firstAt, lockedUntil };
    };
  }

  /** A state still inside its window (or still locked), else a fresh one. */
  #live(current: AttemptState | undefined, now: number): AttemptState {
    if (!current) return { failures: 0, firstAt: now, lockedUntil: 0 };
    const expired = now - current.firstAt > this.#windowMs && current.lockedUntil <= now;
    return expired ? { failures: 0, firstAt: now, lockedUntil: 0 } : current;
  }
}
