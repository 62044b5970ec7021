import { PlatformError } from '../http/errors';

/** Options of {@link HashGate}. */
export interface HashGateOptions {
  /** Password hashes computed at once. Default 2: libuv's other threads stay free for everyone else. */
  concurrency?: number;
  /** Hashes waiting for a slot before further ones are refused, whatever they are expected to wait. Default 256. */
  maxQueued?: number;
  /**
   * The longest a sign-in is kept waiting for a slot, as estimated from how long recent ones took: a sign-in
   * expected to wait longer is refused at once, told when to come back. Default 5,000 ms, well inside the
   * time a browser or a load generator waits for an answer, so a queued sign-in is not given up on.
   */
  maxWaitMs?: number;
  /** The longest `Retry-After` offered, in seconds. Default 60. */
  maxRetryAfterSeconds?: number;
  /** What one sign-in is taken to cost before the first has been timed, in ms. Default 250. */
  initialWorkMs?: number;
  /** The clock, in ms (tests drive it). Default `performance.now()`. */
  now?: () => number;
}

/** How much a new timing moves the estimate of a sign-in's duration (an exponential moving average). */
const SMOOTHING = 0.2;

function busy(retryAfterSeconds: number): PlatformError {
  return new PlatformError('login_busy', 'Too many sign-ins at once; try again.', {
    status: 503,
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
}

/** The sign-in's client closed the connection: nobody would read the answer. */
function abandoned(): PlatformError {
  return new PlatformError('login_busy', 'The sign-in was abandoned before its password was checked.', {
    status: 503,
    headers: { 'Retry-After': '1' },
  });
}

/**
 * Bounds the password hashing in flight. scrypt runs on libuv's thread pool (never on the event loop), and
 * that pool also serves file and DNS work; a flood of sign-ins would otherwise occupy every thread.
 *
 * The queue in front of the slots is bounded by time, not only by length: the gate keeps a moving average of
 * how long a sign-in takes, and one that would wait longer than `maxWaitMs` is refused at once with 503
 * `login_busy` and a `Retry-After` (RFC 9110, section 10.2.3) saying when there will be room. The times
 * handed out are spaced by what the slots get through, one sign-in's share each, so the clients that were
 * refused come back one after another as the queue drains instead of all together. Before, a queue of 256
 * sign-ins took longer to drain than clients wait: they gave up after holding a connection for the whole
 * wait, signed in again, and were told `Retry-After: 1` however long the queue was.
 *
 * A sign-in whose client has gone (its request's `signal` aborted) leaves the queue at once and is never
 * hashed: a client that gave up must not cost a hash that delays everyone queued behind it.
 */
export class HashGate {
  readonly #concurrency: number;
  readonly #maxQueued: number;
  readonly #maxWaitMs: number;
  readonly #maxRetryAfterMs: number;
  readonly #now: () => number;
  /** Sign-ins waiting, in arrival order: each resumes when handed a slot. */
  readonly #waiting: Array<() => void> = [];
  #running = 0;
  #started = 0;
  /** Moving average of a sign-in's duration, in ms. */
  #workMs: number;
  /** The latest time handed out in a `Retry-After`, in ms of {@link #now}. */
  #promisedAt = Number.NEGATIVE_INFINITY;

  constructor(options: HashGateOptions = {}) {
    this.#concurrency = options.concurrency ?? 2;
    this.#maxQueued = options.maxQueued ?? 256;
    this.#maxWaitMs = options.maxWaitMs ?? 5_000;
    this.#maxRetryAfterMs = (options.maxRetryAfterSeconds ?? 60) * 1000;
    this.#workMs = options.initialWorkMs ?? 250;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Sign-ins waiting for a slot now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Pieces of work started since the gate was made (each one password check). */
  get started(): number {
    return this.#started;
  }

  /** The estimate of one sign-in's duration, in ms. */
  get workMs(): number {
    return this.#workMs;
  }

  /**
   * Runs `work` when a slot is free, unless `signal` aborts first: then it rejects with 503 `login_busy`
   * (an answer nobody reads) and `work` never runs. Refused at once with 503 `login_busy` and a
   * `Retry-After` when it would wait longer than `maxWaitMs` or the queue is full.
   */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw abandoned();
    if (this.#running >= this.#concurrency) {
      // Everyone queued goes first, then this one waits for a slot.
      const waitMs = ((this.#waiting.length + 1) / this.#concurrency) * this.#workMs;
      if (waitMs > this.#maxWaitMs || this.#waiting.length >= this.#maxQueued) throw this.#refuse();
      await this.#queue(signal);
    } else {
      this.#running++;
    }
    let began: number | undefined;
    try {
      // Handed a slot, but the client left in the same turn: pass the slot on without hashing.
      if (signal?.aborted) throw abandoned();
      this.#started++;
      began = this.#now();
      return await work();
    } finally {
      if (began !== undefined) this.#time(this.#now() - began);
      this.#release();
    }
  }

  /**
   * A refusal whose `Retry-After` is the next free turn: when the queue will have drained below what
   * `maxWaitMs` admits, or one sign-in's share after the time handed out last, whichever is later.
   */
  #refuse(): PlatformError {
    const now = this.#now();
    const shareMs = this.#workMs / this.#concurrency;
    const admitted = Math.min(this.#maxQueued, Math.floor(this.#maxWaitMs / shareMs));
    const drainedAt = now + Math.max(0, this.#waiting.length - admitted + 1) * shareMs;
    const at = Math.min(Math.max(drainedAt, this.#promisedAt + shareMs), now + this.#maxRetryAfterMs);
    this.#promisedAt = at;
    return busy(Math.max(1, Math.ceil((at - now) / 1000)));
  }

  /** Folds one sign-in's duration into the estimate. */
  #time(ms: number): void {
    this.#workMs += SMOOTHING * (ms - this.#workMs);
  }

  /** Waits for a slot handed over by {@link #release}; leaves the queue if `signal` aborts first. */
  #queue(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const resume = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const at = this.#waiting.indexOf(resume);
        if (at >= 0) this.#waiting.splice(at, 1);
        reject(abandoned());
      };
      this.#waiting.push(resume);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Hands the slot to the next waiter, or frees it. */
  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#running--;
  }
}
