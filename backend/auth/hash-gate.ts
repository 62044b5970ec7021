import { PlatformError } from '../http/errors';

/** Options of {@link HashGate}. */
export interface HashGateOptions {
  /** Password hashes computed at once. Default 2: libuv's other threads stay free for everyone else. */
  concurrency?: number;
  /** Hashes waiting for a slot before further ones are refused. Default 256. */
  maxQueued?: number;
}

/**
 * Bounds the password hashing in flight. scrypt runs on libuv's thread pool (never on the event loop), and
 * that pool also serves file and DNS work; a flood of sign-ins would otherwise occupy every thread. Beyond
 * the queue, a sign-in is refused with 503 `login_busy` and `Retry-After: 1` instead of waiting without end.
 */
export class HashGate {
  readonly #concurrency: number;
  readonly #maxQueued: number;
  readonly #waiting: Array<() => void> = [];
  #running = 0;

  constructor(options: HashGateOptions = {}) {
    this.#concurrency = options.concurrency ?? 2;
    this.#maxQueued = options.maxQueued ?? 256;
  }

  /** Runs `work` when a slot is free. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#concurrency) {
      if (this.#waiting.length >= this.#maxQueued) {
        throw new PlatformError('login_busy', 'Too many sign-ins at once; try again.', {
          status: 503,
          headers: { 'Retry-After': '1' },
        });
      }
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running++;
    }
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
