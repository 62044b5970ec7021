import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import type { ErrorCode } from '../../protocol';
import type { PlanSource } from '../config/plan';
import type { CleanupSummary } from '../engine/cleanup';
import type { IntervalSnapshot } from '../engine/recorder';
import { harnessError } from '../errors';
import type { TargetInfo } from '../target/target-info';
import {
  type Assignment,
  type AssignReply,
  type DoneMessage,
  type Hello,
  type SnapshotMessage,
  SUBJECTS,
} from './protocol';

/** How long to wait for enough idle workers, and for each to prepare. */
const GATHER_MS = 30_000;
const PREPARE_MS = 60_000;
/** A running worker silent this long is lost. */
const LOST_AFTER_MS = 3500;
/** Time between the last worker prepared and second 0 (the start message crosses the network). */
const START_DELAY_MS = 500;

/** What the coordinator hands out. */
export interface RemoteRun {
  natsUrl: string;
  workers: number;
  configPath: string;
  source: PlanSource;
  target: TargetInfo;
  cleanup: boolean;
}

/** How a remote run went, per worker. */
export interface RemoteOutcome {
  cleanups: CleanupSummary[];
  workers: Array<{ name: string; lost: boolean }>;
}

/**
 * Coordinates a run over NATS: gathers `workers` idle workers, assigns each its exact share (user ids and
 * arrivals split by index modulo count, as between threads), waits until all are prepared (a worker that
 * cannot prepare, or cannot reach the target, fails the run with its name), publishes one start instant,
 * forwards every snapshot, and resolves when each worker is done or lost (silent for 3.5 s: `onLost`).
 */
export async function runRemote(
  r: RemoteRun,
  onStart: (startAt: number) => void,
  onSnapshots: (name: string, s: IntervalSnapshot[]) => void,
  onLost: (name: string) => void,
  signal: AbortSignal,
): Promise<RemoteOutcome> {
  const nc = await connect({ servers: r.natsUrl, name: 'desk-load-coordinator' });
  const run = randomUUID().replace(/-/g, '');
  try {
    const names = await gather(nc, r.workers);
    const state = new Map(names.map((n) => [n, { lastSeen: Date.now(), done: false, lost: false }]));
    const cleanups: CleanupSummary[] = [];
    let failure: Error | undefined;
    let finish: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const check = () => {
      if ([...state.values()].every((s) => s.done || s.lost)) finish();
    };
    const seen = (name: string) => {
      const s = state.get(name);
      if (s) s.lastSeen = Date.now();
      return s;
    };
    const subs = [
      nc.subscribe(SUBJECTS.snapshots(run), {
        callback: (_e, m) => {
          const msg = m.json<SnapshotMessage>();
          const s = seen(msg.name);
          if (s && !s.lost) onSnapshots(msg.name, msg.snapshots);
        },
      }),
      nc.subscribe(SUBJECTS.alive(run), { callback: (_e, m) => void seen(m.json<Hello>().name) }),
      nc.subscribe(SUBJECTS.done(run), {
        callback: (_e, m) => {
          const msg = m.json<DoneMessage>();
          const s = seen(msg.name);
          if (!s || s.lost) return;
          s.done = true;
          if (msg.cleanup) cleanups.push(msg.cleanup);
          // A remote worker relays the code it saw (the harness's own or a transport's) unchanged.
          if (msg.error) failure ??= harnessError(msg.error.code as ErrorCode, msg.error.message);
          check();
        },
      }),
    ];
    try {
      const replies = await Promise.all(
        names.map(async (name, index) => {
          const a: Assignment = {
            run,
            configPath: r.configPath,
            source: r.source,
            target: r.target,
            shard: { index, count: names.length },
            cleanup: r.cleanup,
          };
          const res = await nc.request(SUBJECTS.assign(name), JSON.stringify(a), { timeout: PREPARE_MS });
          return res.json<AssignReply>();
        }),
      );
      const refused = replies.find((x): x is Extract<AssignReply, { ok: false }> => !x.ok);
      if (refused) {
        nc.publish(SUBJECTS.stop(run), '');
        throw harnessError(refused.code as ErrorCode, refused.message);
      }
      const startAt = Date.now() + START_DELAY_MS;
      for (const s of state.values()) s.lastSeen = startAt;
      onStart(startAt);
      nc.publish(SUBJECTS.start(run), JSON.stringify({ startAt }));
      const onAbort = () => nc.publish(SUBJECTS.stop(run), '');
      signal.addEventListener('abort', onAbort, { once: true });
      const watchdog = setInterval(() => {
        const now = Date.now();
        for (const [name, s] of state) {
          if (!s.done && !s.lost && now - s.lastSeen > LOST_AFTER_MS) {
            s.lost = true;
            onLost(name);
          }
        }
        check();
      }, 500);
      await finished;
      clearInterval(watchdog);
      signal.removeEventListener('abort', onAbort);
      if (failure) throw failure;
      return { cleanups, workers: names.map((name) => ({ name, lost: state.get(name)!.lost })) };
    } finally {
      for (const s of subs) s.unsubscribe();
    }
  } finally {
    await nc.drain().catch(() => nc.close());
  }
}

/** Waits until `n` distinct idle workers announced themselves, and returns their names. */
async function gather(nc: Awaited<ReturnType<typeof connect>>, n: number): Promise<string[]> {
  const names = new Set<string>();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.unsubscribe();
      reject(
        harnessError(
          'workers_missing',
          `only ${names.size} of ${n} worker(s) announced themselves within ${GATHER_MS / 1000} s (start them with m benchmark worker --nats <url>)`,
        ),
      );
    }, GATHER_MS);
    const sub = nc.subscribe(SUBJECTS.hello, {
      callback: (_e, m) => {
        names.add(m.json<Hello>().name);
        if (names.size >= n) {
          clearTimeout(timer);
          sub.unsubscribe();
          resolve([...names].slice(0, n));
        }
      },
    });
  });
}
