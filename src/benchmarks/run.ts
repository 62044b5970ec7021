import { setMaxListeners } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { PlanOverrides } from './config/load-plan';
import type { LoadPlan } from './config/plan';
import { prepareGenerator } from './engine/generator';
import { HttpClient } from './engine/http-client';
import { VirtualUser } from './engine/virtual-user';
import { runWorkers } from './engine/worker-pool';
import type { WorkerData } from './engine/worker-protocol';
import { Aggregator } from './report/aggregate';
import { buildResult } from './report/build-result';
import { renderHtml } from './report/html-report';
import { type LiveStream, LiveView } from './report/live-view';
import type { LoadResult } from './report/result';
import { discoverTarget } from './target/discover';
import { createEncoder } from './target/encoder';
import type { TargetInfo } from './target/target-info';
import { ProcSampler } from './watch/proc-sampler';

/** How to run a plan. */
export interface RunOptions {
  plan: LoadPlan;
  /** The overrides the plan was built with (generator threads rebuild it from the file). */
  overrides: PlanOverrides;
  /** Output directory (default `load-results/<timestamp>/` under the working directory). */
  outDir?: string;
  watchPid?: number;
  /** Live view output (default stdout). */
  live?: LiveStream;
  /** Abort to stop early; the run is still reported. */
  signal?: AbortSignal;
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
  const signal = o.signal ?? new AbortController().signal;
  // Every sleeping user listens for the abort: thousands of listeners are expected.
  setMaxListeners(0, signal);
  const target = await discover(plan);
  const sampler = o.watchPid !== undefined ? new ProcSampler(o.watchPid) : undefined;
  sampler?.start();

  const workers = plan.generator.workers;
  const agg = new Aggregator(
    plan.scenarios.map((s) => s.label),
    workers,
  );
  const live = new LiveView(o.live ?? process.stdout, plan.durationSeconds);
  const onSnapshots = (snaps: Parameters<Aggregator['add']>[0]) => {
    for (const p of agg.add(snaps)) live.update(p);
  };
  let startAt = Date.now();
  let cpuBefore = process.cpuUsage();
  const onStart = (at: number) => {
    startAt = at;
    cpuBefore = process.cpuUsage();
  };
  try {
    if (workers === 1) {
      const generator = await prepareGenerator(plan, target);
      onStart(Date.now() + START_DELAY_MS);
      await generator.run({ shard: { index: 0, count: 1 }, startAt, signal, onSnapshots });
    } else {
      const shards: WorkerData[] = Array.from({ length: workers }, (_, index) => ({
        kind: 'desk-load-generator',
        configPath: plan.configPath,
        overrides: o.overrides,
        target,
        shard: { index, count: workers },
      }));
      await runWorkers(shards, onStart, onSnapshots, signal);
    }
  } finally {
    live.done();
  }
  const startedAt = new Date(startAt);
  agg.finish();
  const finishedAt = new Date();
  const elapsedS = (finishedAt.getTime() - startAt) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const result = buildResult({
    plan,
    target,
    agg,
    startedAt,
    finishedAt,
    measuredSeconds: Math.max(0.001, Math.min(plan.durationSeconds, elapsedS)),
    cpuPercent: Math.round(((cpu.user + cpu.system) / 1e6 / Math.max(elapsedS, 0.001)) * 1000) / 10,
    watch: sampler?.stop(),
  });
  const dir = resolve(o.outDir ?? defaultOutDir(startedAt));
  await mkdir(dir, { recursive: true });
  const jsonPath = join(dir, 'result.json');
  const htmlPath = join(dir, 'report.html');
  await writeFile(jsonPath, `${JSON.stringify(result, null, 2)}\n`);
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
