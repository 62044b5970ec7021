import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { planFromSource } from '../config/load-plan';
import type { LoadPlan } from '../config/plan';
import { type CleanupSummary, mergeCleanup } from '../engine/cleanup';
import { splitShard } from '../engine/executor';
import { prepareGenerator } from '../engine/generator';
import { HttpClient } from '../engine/http-client';
import { SnapshotMerger } from '../engine/merge-snapshots';
import type { IntervalSnapshot } from '../engine/recorder';
import { startThreads } from '../engine/worker-pool';
import { errorCode } from '../errors';
import {
  type Assignment,
  type AssignReply,
  type DoneMessage,
  type Hello,
  type SnapshotMessage,
  type StartMessage,
  SUBJECTS,
} from './protocol';

/** Seconds between a worker's announcements and heartbeats. */
const BEAT_MS = 1000;

/** How a worker runs its shares. */
export interface WorkerOptions {
  /**
   * Generator threads per share (`--threads`); default the plan's `generator.workers`, the threads a
   * local run of the same file uses.
   */
  threads?: number;
}

/** A default worker name: host and process id, as subject-safe text. */
export function defaultWorkerName(): string {
  return `${hostname().replace(/[^A-Za-z0-9_-]/g, '-')}-${process.pid}`.slice(0, 64);
}

/** Whether the target answers at all from this host (any HTTP status is an answer). */
async function reachable(url: string, timeoutMs: number): Promise<string | undefined> {
  const http = new HttpClient({ connections: 1, timeoutMs });
  try {
    await http.request({ method: 'GET', url, headers: { accept: 'application/json' } });
    return undefined;
  } catch (err) {
    return errorCode(err);
  } finally {
    await http.close();
  }
}

/**
 * `m benchmark worker`: a load generator on any host, driven over NATS. While idle it announces itself;
 * given an assignment it compiles the plan from the validated source it receives (never a file), checks
 * that the target answers from here (naming itself when it does not), prepares, waits for the common
 * start, runs its share and streams its snapshots with a heartbeat. One run at a time; runs until
 * `signal` aborts.
 */
export async function runWorker(
  natsUrl: string,
  name: string,
  signal: AbortSignal,
  log: (s: string) => void,
  o: WorkerOptions = {},
): Promise<void> {
  const nc: NatsConnection = await connect({ servers: natsUrl, name: `desk-load-worker-${name}` });
  let busy = false;
  const hello = setInterval(() => {
    if (!busy) nc.publish(SUBJECTS.hello, JSON.stringify({ name } satisfies Hello));
  }, BEAT_MS);
  nc.publish(SUBJECTS.hello, JSON.stringify({ name } satisfies Hello));
  log(`worker ${name}: waiting for runs on ${natsUrl}`);
  nc.subscribe(SUBJECTS.assign(name), {
    callback: (err, msg) => {
      if (err || busy) {
        msg?.respond(JSON.stringify({ ok: false, code: 'worker_busy', message: `worker ${name} is busy` }));
        return;
      }
      busy = true;
      void runAssignment(
        nc,
        name,
        msg.json<Assignment>(),
        (reply) => msg.respond(JSON.stringify(reply)),
        log,
        o,
      ).finally(() => {
        busy = false;
      });
    },
  });
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  clearInterval(hello);
  await nc.drain().catch(() => nc.close());
}

/** A worker's share, prepared: run it from a start instant, or drop it. */
interface PreparedShare {
  ready: Promise<void>;
  run(startAt: number): Promise<CleanupSummary>;
  cancel(): Promise<void>;
}

/** The share in this thread (no thread to start). */
function oneThread(
  plan: LoadPlan,
  a: Assignment,
  signal: AbortSignal,
  publish: (s: IntervalSnapshot[]) => void,
): PreparedShare {
  const generator = prepareGenerator(plan, a.target, a.shard);
  return {
    ready: generator.then(() => undefined),
    run: async (startAt) =>
      (await generator).run({ shard: a.shard, startAt, signal, cleanup: a.cleanup, onSnapshots: publish }),
    cancel: async () => (await generator).close(),
  };
}

/**
 * The share split exactly between `threads` generator threads (see splitShard), their snapshots merged
 * into one stream per second, so the coordinator sees one worker.
 */
function manyThreads(
  a: Assignment,
  threads: number,
  signal: AbortSignal,
  publish: (s: IntervalSnapshot[]) => void,
): PreparedShare {
  const merger = new SnapshotMerger(threads);
  const pool = startThreads(
    splitShard(a.shard, threads).map((shard) => ({
      kind: 'desk-load-generator',
      configPath: a.configPath,
      source: a.source,
      target: a.target,
      shard,
      cleanup: a.cleanup,
    })),
    (snapshots) => publish(merger.add(snapshots)),
    signal,
  );
  return {
    ready: pool.ready,
    async run(startAt) {
      pool.start(startAt);
      const cleanups = await pool.done;
      publish(merger.rest());
      return mergeCleanup(cleanups);
    },
    // The abort that cancels the share has already told the threads to stop.
    cancel: () => pool.done.then(() => undefined),
  };
}

async function runAssignment(
  nc: NatsConnection,
  name: string,
  a: Assignment,
  reply: (r: AssignReply) => void,
  log: (s: string) => void,
  o: WorkerOptions,
): Promise<void> {
  const ac = new AbortController();
  setMaxListeners(0, ac.signal);
  const stopSub = nc.subscribe(SUBJECTS.stop(a.run), { callback: () => ac.abort() });
  let started: (at: number) => void = () => {};
  const start = new Promise<number>((resolve) => {
    started = resolve;
  });
  const startSub = nc.subscribe(SUBJECTS.start(a.run), {
    callback: (_e, m) => started(m.json<StartMessage>().startAt),
  });
  const done = (d: Omit<DoneMessage, 'name'>) =>
    nc.publish(SUBJECTS.done(a.run), JSON.stringify({ name, ...d }));
  let alive: NodeJS.Timeout | undefined;
  try {
    const plan = await planFromSource(a.source, a.configPath);
    const unreachable = await reachable(plan.targetUrl, Math.min(plan.http.timeoutMs, 5000));
    if (unreachable) {
      reply({
        ok: false,
        code: 'target_unreachable',
        message: `worker ${name} cannot reach ${plan.targetUrl} (${unreachable})`,
      });
      return;
    }
    const publish = (snapshots: IntervalSnapshot[]) => {
      if (snapshots.length > 0)
        nc.publish(SUBJECTS.snapshots(a.run), JSON.stringify({ name, snapshots } satisfies SnapshotMessage));
    };
    const threads = Math.max(1, o.threads ?? plan.generator.workers);
    const share =
      threads === 1 ? oneThread(plan, a, ac.signal, publish) : manyThreads(a, threads, ac.signal, publish);
    await share.ready;
    reply({ ok: true });
    log(
      `worker ${name}: prepared share ${a.shard.index + 1} of ${a.shard.count} of run ${a.run} on ${threads} thread(s)`,
    );
    const startAt = await Promise.race([
      start,
      new Promise<number>((r) => ac.signal.addEventListener('abort', () => r(-1))),
    ]);
    if (startAt < 0) {
      await share.cancel();
      return;
    }
    alive = setInterval(
      () => nc.publish(SUBJECTS.alive(a.run), JSON.stringify({ name } satisfies Hello)),
      BEAT_MS,
    );
    const cleanup = await share.run(startAt);
    done({ cleanup });
    log(`worker ${name}: run ${a.run} done`);
  } catch (err) {
    const e = { code: errorCode(err), message: `worker ${name}: ${(err as Error).message}` };
    reply({ ok: false, ...e });
    done({ error: e });
  } finally {
    clearInterval(alive);
    stopSub.unsubscribe();
    startSub.unsubscribe();
    await nc.flush().catch(() => undefined);
  }
}
