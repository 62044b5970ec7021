import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { PlatformError } from '../http/errors';

/** What a lock file holds: who took it. */
export interface LockHolder {
  pid: number;
  hostname: string;
  /** The holder's start time in clock ticks since boot (Linux), so a reused PID is not taken for the holder. */
  started?: string;
  /** What holds it, e.g. `m serve`. */
  purpose: string;
}

/** A lock this process holds; `release()` removes the file when it still names this process. Idempotent. */
export interface HeldLock {
  path: string;
  release(): void;
}

/** Start time of a process (field 22 of `/proc/<pid>/stat`), when the system exposes it. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** True when the process that wrote `holder` may still be running (another host's holder always counts). */
export function holderAlive(holder: LockHolder): boolean {
  if (holder.hostname !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const started = processStartTime(holder.pid);
  return holder.started === undefined || started === undefined || started === holder.started;
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    return typeof value.pid === 'number' && typeof value.hostname === 'string'
      ? (value as LockHolder)
      : undefined;
  } catch {
    return undefined;
  }
}

/** 1 the lock is held by a live process; the error names its PID (and what it is). */
export function lockedError(path: string, holder: LockHolder): PlatformError {
  const where = holder.hostname === hostname() ? '' : ` on ${holder.hostname}`;
  return new PlatformError(
    'data_dir_locked',
    `${path} is held by ${holder.purpose} (PID ${holder.pid}${where}); stop it first, or use another data directory.`,
  );
}

/**
 * Takes an exclusive lock file (created with `O_EXCL`, mode 0600, holding {@link LockHolder} as JSON).
 *
 * When the file exists, its holder is checked: a live one throws `data_dir_locked` naming its PID; a dead one
 * (killed without releasing) is taken over safely: under a takeover guard (`<path>.takeover`, itself created
 * with `O_EXCL`) the stale file is removed only while it still holds what was read, and the exclusive create
 * is then retried, so two processes taking over the same stale lock never both win.
 */
export async function acquireLockFile(path: string, purpose: string): Promise<HeldLock> {
  const me: LockHolder = {
    pid: process.pid,
    hostname: hostname(),
    started: processStartTime(process.pid),
    purpose,
  };
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, `${JSON.stringify(me)}\n`);
      } finally {
        closeSync(fd);
      }
      return heldLock(path, me);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === undefined) continue; // released in between: try again
    const holder = parseHolder(text);
    if (!holder) {
      // Being written right now (created, not yet filled) or garbage: give a writer a moment first.
      if (attempt < 5) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
    } else if (holderAlive(holder)) {
      throw lockedError(path, holder);
    }
    // Only the holder of the takeover guard removes a stale lock, and only while it still holds what was
    // read: a fresh lock can only be created once the stale file is gone, so it is never removed by mistake,
    // and every taker then races on the exclusive create, which exactly one wins.
    const guard = `${path}.takeover`;
    if (!(await takeGuard(guard, me, attempt))) continue;
    try {
      const now = await readFile(path, 'utf8').catch(() => undefined);
      if (now === text) await rm(path, { force: true });
    } finally {
      rmSync(guard, { force: true });
    }
  }
  throw new PlatformError('data_dir_locked', `${path}: could not take the lock (it keeps changing hands).`);
}

/**
 * Takes the guard of a stale lock's takeover (an `O_EXCL` file naming `me`); false when another taker holds
 * it (after a short wait, so the caller looks at the lock again). A guard left by a taker that died during its
 * takeover (a window of a few system calls) is removed, as is one still empty after several attempts.
 */
async function takeGuard(guard: string, me: LockHolder, attempt: number): Promise<boolean> {
  try {
    const fd = openSync(guard, 'wx', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(me)}\n`);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const holder = parseHolder(await readFile(guard, 'utf8').catch(() => ''));
  if (holder ? !holderAlive(holder) : attempt >= 5) await rm(guard, { force: true });
  else await new Promise((r) => setTimeout(r, 20));
  return false;
}

function heldLock(path: string, me: LockHolder): HeldLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    try {
      const holder = parseHolder(readFileSync(path, 'utf8'));
      if (holder?.pid !== me.pid || holder.started !== me.started) return;
      // Rename first so a reader never sees a half-removed file, then remove.
      const gone = `${path}.released-${process.pid}`;
      renameSync(path, gone);
      rmSync(gone, { force: true });
    } catch {
      // already gone
    }
  };
  // A process that exits without stopping (an uncaught error) still frees the lock; SIGKILL leaves it stale.
  process.on('exit', release);
  return { path, release };
}

/** Runs `fn` while holding the lock file `path` (waiting up to `waitMs` for a live holder to let go). */
export async function withLockFile<T>(
  path: string,
  purpose: string,
  fn: () => Promise<T>,
  waitMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + waitMs;
  let lock: HeldLock;
  for (;;) {
    try {
      lock = await acquireLockFile(path, purpose);
      break;
    } catch (err) {
      if ((err as PlatformError).code !== 'data_dir_locked' || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  try {
    return await fn();
  } finally {
    lock.release();
  }
}
