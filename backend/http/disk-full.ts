/** PostgreSQL's SQLSTATE for a write refused by a full device (`disk_full`, class 53 insufficient resources). */
const DISK_FULL_SQLSTATE = '53100';
/** How the C library (and so PGlite's WASM file system, and Postgres's messages) words ENOSPC. */
const NO_SPACE = /No space left on device|\bENOSPC\b/;

/**
 * True for an error saying the device holding the data is full: Node's `ENOSPC` (a file write), PostgreSQL's
 * SQLSTATE 53100 (a table, index or WAL write of PGlite or a server), or a message carrying either, also as
 * the `cause` of a wrapping error. Pure, so the HTTP error handler can use it in every bundle.
 */
export function isDiskFull(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, message, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (code === 'ENOSPC' || code === DISK_FULL_SQLSTATE) return true;
    if (typeof message === 'string' && NO_SPACE.test(message)) return true;
    e = cause;
  }
  return false;
}
