import { createHash } from 'node:crypto';
import type { AttemptState, AttemptStore } from './login-attempts';

/** Settings of {@link LoginThrottle} (docs/security.md#login-throttling). */
export interface LoginThrottleOptions {
  store: AttemptStore;
  /** Failed sign-ins of one account within `windowMs` before it is locked. Default 5. */
  maxFailures?: number;
  /** Failed sign-ins from one client address within `windowMs` before it is locked. Default 50. */
  maxAddressFailures?: number;
  /** The window failures are counted in. Default 15 minutes. */
  windowMs?: number;
  /** The first lock-out; each further failure doubles it. Default 60 s. */
  lockMs?: number;
  /** The longest lock-out. Default 15 minutes. */
  maxLockMs?: number;
  now?: () => number;
}

/** The outcome of {@link LoginThrottle.begin}. */
export type ThrottleDecision =
  | { allowed: true; attempt: LoginAttempt }
  | { allowed: false; retryAfterSeconds: number };

/** An admitted sign-in attempt: report its outcome exactly once. */
export interface LoginAttempt {
  /** The password was right: the account's counter is cleared and the attempt uncounted at the address. */
  succeeded(): Promise<void>;
  /** The password was wrong: the attempt stays counted. */
  failed(): Promise<void>;
}

const key = (kind: 'account' | 'address', value: string) =>
  `${kind}.${createHash('sha256').update(value).digest('hex').slice(0, 40)}`;

/**
 * Login throttling per account and per client address. An attempt is counted when it starts (so a burst
 * of concurrent guesses cannot all pass before the first is counted) and uncounted when it succeeds. Once
 * an account has `maxFailures` counted attempts within the window, it is locked for `lockMs`, doubled for
 * every further failure up to `maxLockMs`; while locked every sign-in is refused before any password is
 * checked, the right one included. The address counter works the same with its own, higher limit, so one
 * client guessing across many accounts is stopped while other clients are not.
 */
export class LoginThrottle {
  readonly #store: AttemptStore;
  readonly #maxFailures: number;
  readonly #maxAddressFailures: number;
  readonly #windowMs: number;
  readonly #lockMs: number;
  readonly #maxLockMs: number;
  readonly #now: () => number;

  constructor(options: LoginThrottleOptions) {
    this.#store = options.store;
    this.#maxFailures = options.maxFailures ?? 5;
    this.#maxAddressFailures = options.maxAddressFailures ?? 50;
    this.#windowMs = options.windowMs ?? 15 * 60_000;
    this.#lockMs = options.lockMs ?? 60_000;
    this.#maxLockMs = options.maxLockMs ?? 15 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** Admits a sign-in attempt for `account` from `address`, or refuses it with the seconds to wait. */
  async begin(account: string, address: string): Promise<ThrottleDecision> {
    const accountKey = key('account', account.toLowerCase());
    const addressKey = key('address', address);
    const now = this.#now();
    let refusedUntil = 0;
    const count = (limit: number) => (current: AttemptState | undefined) => {
      const state = this.#live(current, now);
      if (state.lockedUntil > now) {
        refusedUntil = Math.max(refusedUntil, state.lockedUntil);
        return state;
      }
      const failures = state.failures + 1;
      const lockedUntil =
        failures >= limit ? now + Math.min(this.#lockMs * 2 ** (failures - limit), this.#maxLockMs) : 0;
      return { failures, firstAt: state.failures === 0 ? now : state.firstAt, lockedUntil };
    };
    await this.#store.change(addressKey, count(this.#maxAddressFailures));
    if (refusedUntil === 0) await this.#store.change(accountKey, count(this.#maxFailures));
    if (refusedUntil > 0) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((refusedUntil - now) / 1000)) };
    }
    let reported = false;
    return {
      allowed: true,
      attempt: {
        succeeded: async () => {
          if (reported) return;
          reported = true;
          await this.#store.change(accountKey, () => undefined);
          await this.#store.change(addressKey, (current) => {
            if (!current) return undefined;
            const failures = Math.max(0, current.failures - 1);
            return failures === 0 ? undefined : { ...current, failures, lockedUntil: 0 };
          });
        },
        failed: async () => {
          reported = true;
        },
      },
    };
  }

  /** A state still inside its window (or still locked), else a fresh one. */
  #live(current: AttemptState | undefined, now: number): AttemptState {
    if (!current) return { failures: 0, firstAt: now, lockedUntil: 0 };
    const expired = now - current.firstAt > this.#windowMs && current.lockedUntil <= now;
    return expired ? { failures: 0, firstAt: now, lockedUntil: 0 } : current;
  }
}
