/** Bounding one load or preload attempt of a remote in time. */

/** What {@link withTimeout} resolves with when the time ran out first. */
export const TIMEOUT = Symbol('timeout');

/** `promise`'s value, or {@link TIMEOUT} when `ms` elapse first; the timer never outlives the race. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMEOUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<typeof TIMEOUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMEOUT), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
