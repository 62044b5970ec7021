import { PlatformError } from '../http/errors';

/** Options of {@link HashGate}. */
export interface HashGateOptions {
  /** Password hashes computed at once. Default 2: libuv's other threads stay free for everyone else. */
  concurrency?: number;
  /** Hashes waiting for a slot before further ones are refused. Default 256. */
  maxQueued?: number;
}

function busy(): PlatformError {
  return new PlatformError('login_busy', 'Too many sign-ins at once; try again.', {
    status: 503,
    headers: { 'Retry-After': '1' },
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
 * that pool also serves file and DNS work; a flood of sign-ins would otherwise occupy every thread. Beyond
 * the queue, a sign-in is refused with 503 `login_busy` and `Retry-After: 1` instead of waiting without end.
 * A sign-in whose client has gone (its request's `signal` aborted) leaves the queue at once and is never
 * hashed: a client that gave up must not cost a hash that delays everyone queued behind it.
 */
export class HashGate {
  readonly #concurrency: number;
  readonly #maxQueued: number;
  /** Sign-ins waiting, in arrival order: each resumes when handed a slot. */
  readonly #waiting: Array<() => void> = [];
  #running = 0;
  #started = 0;

  constructor(options: HashGateOptions = {}) {
    this.#concurrency = options.concurrency ?? 2;
    this.#maxQueued = options.maxQueued ?? 256;
  }

  /** Sign-ins waiting for a slot now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Pieces of work started since the gate was made (each one password check). */
  get started(): number {
    return this.#started;
  }

  /**
   * Runs `work` when a slot is free, unless `signal` aborts first: then it rejects with 503 `login_busy`
   * (an answer nobody reads) and `work` never runs.
   */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw abandoned();
    if (this.#running >= this.#concurrency) {
      if (this.#waiting.length >= this.#maxQueued) throw busy();
      await this.#queue(signal);
    } else {
      this.#running++;
    }
    try {
      // Handed a slot, but the client left in the same turn: pass the slot on without hashing.
      if (signal?.aborted) throw abandoned();
      this.#started++;
      return await work();
    } finally {
      this.#release();
    }
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
