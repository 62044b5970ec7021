import { PlatformError } from '../../http/errors';
import type { SeenSet } from './seen-set';

/** Options of {@link ReplayGuard}. */
export interface ReplayGuardOptions {
  seen: SeenSet;
  /** `security.payload_encryption.replay_window_seconds`. */
  windowSeconds: number;
  /** `security.payload_encryption.clock_skew_seconds`. */
  clockSkewSeconds: number;
  /**
   * Refuse every token issued before this moment (epoch ms): set to the process's start where the seen ids
   * live only in memory, so a token accepted before a crash or a restart cannot be accepted again after it.
   */
  notBeforeMs?: number;
  now?: () => number;
}

/** The replay-relevant members of a decrypted JWE's protected header. */
export interface ReplayClaims {
  iat?: number;
  jti?: string;
}

/** 400 `replayed`: the token was already used, is too old, or lacks `iat` / `jti`. Never echoes them. */
export function replayed(message: string): PlatformError {
  return new PlatformError('replayed', message, { status: 400 });
}

/**
 * Refuses replayed request JWEs (docs/security.md#a-jwe-is-bound-to-its-request): the protected header must
 * carry `iat` (seconds since the epoch) and a random `jti`; a token issued more than the window ago, or more
 * than the clock skew in the future, is refused, and so is a `jti` already seen within the window, and one
 * issued before `notBeforeMs` (the start of a process whose seen ids were in memory). A process that opens
 * the token calls it after decryption, so only authenticated headers reach its seen-set; a MACROSERVICE
 * gateway also calls it, unauthenticated, for a token sealed for a service it cannot open (a pre-check: a
 * forged `jti` can add an id but not shadow a real one it does not know), and the service checks again after
 * decrypting (docs/security.md#encrypted-to-the-owning-service).
 */
export class ReplayGuard {
  readonly #seen: SeenSet;
  readonly #windowMs: number;
  readonly #skewMs: number;
  readonly #notBeforeMs: number;
  readonly #now: () => number;

  constructor(options: ReplayGuardOptions) {
    this.#notBeforeMs = options.notBeforeMs ?? Number.NEGATIVE_INFINITY;
    this.#seen = options.seen;
    this.#windowMs = options.windowSeconds * 1000;
    this.#skewMs = options.clockSkewSeconds * 1000;
    this.#now = options.now ?? Date.now;
  }

  /** Throws 400 `replayed` unless the claims are fresh and the `jti` is new. */
  async check(claims: ReplayClaims): Promise<void> {
    const { iat, jti } = claims;
    if (iat === undefined || jti === undefined) {
      throw replayed('The encrypted payload must carry "iat" and "jti" in its protected header.');
    }
    const now = this.#now();
    const issuedMs = iat * 1000;
    if (issuedMs < now - this.#windowMs - this.#skewMs || issuedMs > now + this.#skewMs) {
      throw replayed('The encrypted payload is too old (or from the future); encrypt it again.');
    }
    // `iat` counts whole seconds: a token is refused when its whole second ended before the start, the only
    // tokens an earlier process can have accepted (docs/security.md#replay-window).
    if (issuedMs + 1000 <= this.#notBeforeMs) {
      throw replayed('The encrypted payload was made before this server started; encrypt it again.');
    }
    // Remembered until the token could no longer pass the age check anyway.
    const ttlMs = Math.max(1000, issuedMs + this.#windowMs + this.#skewMs - now);
    if (!(await this.#seen.add(jti, ttlMs))) {
      throw replayed('This encrypted payload was already used; encrypt it again.');
    }
  }
}
