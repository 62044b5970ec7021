import { setMaxListeners } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { LoadPlan } from './config/plan';
import { type CleanupSummary, mergeCleanup } from './engine/cleanup';
import { prepareGenerator } from './engine/generator';
import {
  decodeHistogram,
  encodeHistogram,
  type LatencyHistogram,
  mergeInto,
  newHistogram,
} from './engine/histogram';
import { HttpClient } from './engine/http-client';
import { VirtualUser } from './engine/virtual-user';
import { runWorkers } from './engine/worker-pool';
import type { WorkerData } from './engine/worker-protocol';
import type { LiveOptions, LiveServers } from './live/live-server';
import { abortCheck } from './report/abort-watch';
import { Aggregator } from './report/aggregate';
import { buildResult } from './report/build-result';
import { type LiveStream, LiveView } from './report/live-view';
import type { AbortRecord, DistributedRun, LoadResult } from './report/result';
import { discoverTarget } from './target/discover';
import { createEncoder } from './target/encoder';
import type { TargetInfo } from './target/target-info';
import { ProcSampler } from './watch/proc-sampler';
import { TargetMetricsSampler } from './watch/target-metrics';

/** How to run a plan. */
export interface RunOptions {
  plan: LoadPlan;
  /** Output directory (default `load-results/<timestamp>/` under the working directory). */
  outDir?: string;
  watchPid?: number;
  /**
   * Read the target's own `/metrics` once a second (`--watch-target`) with this `Authorization` value (an
   * API key of a System Manager or a Metrics Reader).
   */
  watchTarget?: { authorization: string };
  /** Live view output (default stdout). */
  live?: LiveStream;
  /** Abort to stop early; the run is still reported. */
  signal?: AbortSignal;
  /** Delete the records the run created once the load is over. */
  cleanup?: boolean;
  /** Serve OpenMetrics and/or the live dashboard while the run lasts. */
  serve?: LiveOptions;
  /** Told the live endpoints' URLs once they listen. */
  onServing?: (urls: LiveServers['urls']) => void;
  /** Generate the load from `workers` worker processes reached over NATS instead of this process. */
  remote?: { natsUrl: string; workers: number };
  /** Told about a worker lost during a remote run. */
  onWorkerLost?: (name: string) => void;
}

/** A finished run: its result and the files written. */
export interface RunReport {
  result: LoadResult;
  jsonPath: string;
  htmlPath: string;
}

/** Time between the prepared generator and second 0. */
const START_DELAY_MS = 20;

/** Default output directory: `load-results/2026-01-31T12-00-00Z/`. */
function defaultOutDir(now = new Date()): string {
  return join(
    'load-results',
    now
      .toISOString()
      .replace(/\.\d+Z$/, 'Z')
      .replace(/:/g, '-'),
  );
}

/**
 * Runs a load test: discovers the target, starts the generator (in this thread, or one thread per
 * `generator.workers`), aggregates their per-second snapshots with a live view, then writes
 * `result.json` and `report.html` and returns the verdict with them.
 */
export async function runLoadTest(o: RunOptions): Promise<RunReport> {
  const { plan } = o;
  // The run stops on the caller's signal (Ctrl-C) or on an `abort_on_fail` threshold.
  const stop = new AbortController();
  const signal = stop.signal;
  const onCallerAbort = () => stop.abort();
  if (o.signal?.aborted) stop.abort();
  o.signal?.addEventListener('abort', onCallerAbort, { once: true });
  // Every sleeping user listens for the abort: thousands of listeners are expected.
  setMaxListeners(0, signal);
  const target = await discover(plan);
  const sampler = o.watchPid !== undefined ? new ProcSampler(o.watchPid) : undefined;
  sampler?.start();
  // The first reading happens before any load: wrong credentials stop the run before it starts.
  const serverSampler = o.watchTarget
    ? new TargetMetricsSampler({ targetUrl: plan.targetUrl, authorization: o.watchTarget.authorization })
    : undefined;
  await serverSampler?.start();

  const workers = o.remote?.workers ?? plan.generator.workers;
  const agg = new Aggregator(
    plan.slots.map((s) => s.label),
    workers,
    plan.scenarios.length,
  );
  const live = new LiveView(o.live ?? process.stdout, plan.durationSeconds);
  let aborted: AbortRecord | undefined;
  let startAt = Date.now();
  let cpuBefore = process.cpuUsage();
  let servers: LiveServers | undefined;
  if (o.serve && (o.serve.metrics || o.serve.dashboard)) {
    // Loaded only here: a run without --metrics-port or --dashboard never needs the servers.
    const { startLiveServers } = await import('./live/live-server');
    servers = await startLiveServers(
      o.serve,
      {
        agg,
        elapsedSeconds: () => Math.max(0, (Date.now() - startAt) / 1000),
        cpuSeconds: () => {
          const c = process.cpuUsage(cpuBefore);
          return (c.user + c.system) / 1e6;
        },
      },
      {
        targetUrl: plan.targetUrl,
        labels: plan.scenarios.map((s) => s.label),
        open: plan.model.kind === 'open',
        durationSeconds: plan.durationSeconds,
        serverTiming: plan.serverTiming,
      },
    );
    o.onServing?.(servers.urls);
  }
  const onSnapshots = (snaps: Parameters<Aggregator['add']>[0]) => {
    for (const p of agg.add(snaps)) {
      live.update(p);
      servers?.publish(
        p,
        sampler && { pid: sampler.pid, samples: sampler.samplesSoFar() },
        serverSampler && { samples: serverSampler.samplesSoFar() },
      );
      if (!aborted) {
        aborted = abortCheck(plan, agg, p.t + 1);
        if (aborted) stop.abort();
      }
    }
  };
  const onStart = (at: number) => {
    startAt = at;
    cpuBefore = process.cpuUsage();
  };
  let cleanups: CleanupSummary[];
  let distributed: DistributedRun | undefined;
  try {
    if (o.remote) {
      // Loaded only here: a local run never needs the NATS client.
      const { runRemote } = await import('./remote/coordinator');
      const perWorker = new Map<string, { requests: number; histogram: LatencyHistogram }>();
      const outcome = await runRemote(
        {
          ...o.remote,
          configPath: plan.configPath,
          source: plan.source,
          target,
          cleanup: o.cleanup === true,
        },
        onStart,
        (name, snaps) => {
          let w = perWorker.get(name);
          if (!w) {
            w = { requests: 0, histogram: newHistogram() };
            perWorker.set(name, w);
          }
          for (const snap of snaps) {
            for (const sc of snap.scenarios.slice(0, plan.scenarios.length)) {
              w.requests += sc.count;
              if (sc.histogram) mergeInto(w.histogram, decodeHistogram(sc.histogram));
            }
          }
          onSnapshots(snaps);
        },
        (name) => {
          o.onWorkerLost?.(name);
          for (const p of agg.dropSource()) live.update(p);
        },
        signal,
      );
      cleanups = outcome.cleanups;
      distributed = {
        nats: o.remote.natsUrl,
        incomplete: outcome.workers.some((w) => w.lost),
        workers: outcome.workers.map((w) => {
          const mine = perWorker.get(w.name);
          return {
            name: w.name,
            lost: w.lost,
            requests: mine?.requests ?? 0,
            histogram: encodeHistogram(mine?.histogram ?? newHistogram()),
          };
        }),
      };
    } else if (workers === 1) {
      const generator = await prepareGenerator(plan, target);
      onStart(Date.now() + START_DELAY_MS);
      const shard = { index: 0, count: 1 };
      cleanups = [
        await generator.run({ shard, startAt, signal, onSnapshots, cleanup: o.cleanup, inThread: true }),
      ];
    } else {
      // Each thread gets the validated plan's own inputs, never the path to read again.
      const shards: WorkerData[] = Array.from({ length: workers }, (_, index) => ({
        kind: 'desk-load-generator',
        configPath: plan.configPath,
        source: plan.source,
        target,
        shard: { index, count: workers },
        cleanup: o.cleanup === true,
      }));
      cleanups = await runWorkers(shards, onStart, onSnapshots, signal);
    }
  } catch (err) {
    await servers?.close('failed');
    await serverSampler?.stop();
    throw err;
  } finally {
    live.done();
    o.signal?.removeEventListener('abort', onCallerAbort);
  }
  const startedAt = new Date(startAt);
  agg.finish();
  const finishedAt = new Date();
  const elapsedS = (finishedAt.getTime() - startAt) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const result = buildResult({
    plan: o.remote ? { ...plan, generator: { ...plan.generator, workers } } : plan,
    target,
    agg,
    startedAt,
    finishedAt,
    measuredSeconds: Math.max(0.001, Math.min(plan.durationSeconds, elapsedS)),
    cpuPercent: Math.round(((cpu.user + cpu.system) / 1e6 / Math.max(elapsedS, 0.001)) * 1000) / 10,
    watch: sampler?.stop(),
    ...(serverSampler ? { targetMetrics: await serverSampler.stop() } : {}),
    aborted,
    cleanup: { ...mergeCleanup(cleanups), requested: o.cleanup === true },
    distributed,
  });
  await servers?.close(result.verdict.status);
  const dir = resolve(o.outDir ?? defaultOutDir(startedAt));
  await mkdir(dir, { recursive: true });
  const jsonPath = join(dir, 'result.json');
  const htmlPath = join(dir, 'report.html');
  await writeFile(jsonPath, `${JSON.stringify(result, null, 2)}\n`);
  // Loaded once the load is over, so its code is not parsed and compiled while the run starts.
  const { renderHtml } = await import('./report/html-report');
  await writeFile(htmlPath, renderHtml(result));
  return { result, jsonPath, htmlPath };
}

/** Target discovery with a short-lived client; a `metaUrl` behind auth is read as one logged-in user. */
async function discover(plan: LoadPlan): Promise<TargetInfo> {
  const http = new HttpClient({
    connections: 2,
    timeoutMs: Math.min(plan.http.timeoutMs, 10_000),
    hostHeader: plan.hostHeader,
  });
  try {
    return await discoverTarget(plan, http, async (url, security) => {
      const encoder = await createEncoder(security, plan.targetUrl);
      const empty: TargetInfo = { security, doctypes: {}, services: {} };
      const user = new VirtualUser(-1, { plan, target: empty, http, encoder });
      return user.send(plan.auth, { method: 'GET', url });
    });
  } finally {
    await http.close();
  }
}
