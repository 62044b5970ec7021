import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchmarkCli } from '../../../src/benchmarks/cli';
import { loadPlanFile } from '../../../src/benchmarks/config/load-plan';
import { decodeHistogram, newHistogram, summarize } from '../../../src/benchmarks/engine/histogram';
import { EXIT } from '../../../src/benchmarks/exit-codes';
import { type Assignment, SUBJECTS } from '../../../src/benchmarks/remote/protocol';
import type { LoadResult } from '../../../src/benchmarks/report/result';
import { type NatsServerHandle, startNatsServer } from '../../helpers/nats-server';
import { type RecordingServer, startRecordingServer } from '../helpers/recording-server';
import { tempDir, writeConfig } from '../helpers/runtime';

const root = join(import.meta.dirname, '..', '..', '..');
let nats: NatsServerHandle;
let target: RecordingServer;
const workers = new Map<string, ChildProcess>();
/** What each worker wrote to stderr (its log). */
const logs = new Map<string, string>();

/** Starts `m benchmark worker` in its own process and waits until it listens for runs. */
function startWorker(name: string): Promise<void> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/benchmarks/load-test.ts', 'worker', '--nats', nats.url, '--name', name],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  workers.set(name, child);
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      logs.set(name, (logs.get(name) ?? '') + d.toString());
      if (d.toString().includes('waiting for runs')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker ${name} exited with ${code}`)));
  });
}

beforeAll(async () => {
  nats = await startNatsServer();
  target = await startRecordingServer((r) => (r.path === '/slow' ? { delayMs: 5 } : undefined));
  await Promise.all([startWorker('w1'), startWorker('w2')]);
});

afterAll(async () => {
  for (const child of workers.values()) if (child.exitCode === null) child.kill('SIGTERM');
  await target?.close();
  await nats?.dispose();
});

async function coordinate(
  seconds: number,
  onErr: (s: string) => void = () => undefined,
  load = 'users: { peak: 4, think_time_seconds: 0.02 }',
  threads = 1,
) {
  const path = writeConfig(`target_url: ${target.url}
auth: { mode: none }
${load}
duration_seconds: ${seconds}
generator: { max_event_loop_lag_ms: 60000, workers: ${threads} }
thresholds: { p95_ms: 600000 }
targets:
  - { type: endpoint, name: fast, method: GET, path: /fast }
  - { type: endpoint, name: slow, method: GET, path: /slow }
`);
  const outDir = tempDir('load-nats-');
  let err = '';
  const io = {
    out: { write: () => true },
    err: {
      write: (s: string) => {
        err += s;
        onErr(s);
        return true;
      },
    },
  };
  const code = await benchmarkCli(
    ['--config', path, '--nats', nats.url, '--workers', '2', '--out', outDir],
    io,
    {},
  );
  const result = JSON.parse(readFileSync(join(outDir, 'result.json'), 'utf8')) as LoadResult;
  return { code, result, err };
}

describe('m benchmark over NATS with two worker processes', () => {
  it('splits the load, merges the workers exactly, and gives one verdict', async () => {
    const hits = () => target.received.filter((r) => r.path === '/fast' || r.path === '/slow').length;
    const before = hits();
    const { code, result, err } = await coordinate(2);
    expect(code, err).toBe(EXIT.pass);
    const d = result.distributed!;
    expect(d.incomplete).toBe(false);
    expect(d.workers.map((w) => w.name).sort()).toEqual(['w1', 'w2']);
    expect(d.workers.every((w) => w.requests > 0)).toBe(true);
    // The merged requests are the sum of the workers', and what the target received.
    expect(result.total.count).toBe(d.workers[0]!.requests + d.workers[1]!.requests);
    expect(result.total.count).toBe(hits() - before);
    // The merged p99 is the p99 of the union of the latencies both workers recorded.
    const union = newHistogram();
    for (const w of d.workers) union.add(decodeHistogram(w.histogram));
    expect(union.totalCount).toBe(result.total.count);
    expect(summarize(union).p99).toBe(result.total.latencyMs.p99);
    expect(summarize(union).p50).toBe(result.total.latencyMs.p50);
    expect(result.config.workers).toBe(2);
  });

  it('runs each share on the threads the file asks for, split exactly, merged exactly', async () => {
    const before = target.received.filter((r) => r.path === '/fast' || r.path === '/slow').length;
    // Open model: 2 workers x 2 threads share 30 arrivals a second for 2 s.
    const { code, result, err } = await coordinate(
      2,
      undefined,
      'users: { peak: 40 }\nrate: { requests_per_second: 30 }',
      2,
    );
    expect(code, err).toBe(EXIT.pass);
    for (const name of ['w1', 'w2']) expect(logs.get(name)).toContain('on 2 thread(s)');
    const scheduled = result.timeline.reduce((n, p) => n + p.scheduled, 0);
    const dropped = result.timeline.reduce((n, p) => n + p.dropped, 0);
    expect(scheduled).toBe(60);
    expect(result.total.count + dropped).toBe(60);
    const after = target.received.filter((r) => r.path === '/fast' || r.path === '/slow').length;
    expect(after - before).toBe(result.total.count);
    const d = result.distributed!;
    expect(d.workers.every((w) => w.requests > 0)).toBe(true);
    expect(result.total.count).toBe(d.workers[0]!.requests + d.workers[1]!.requests);
    const union = newHistogram();
    for (const w of d.workers) union.add(decodeHistogram(w.histogram));
    expect(union.totalCount).toBe(result.total.count);
    expect(summarize(union).p99).toBe(result.total.latencyMs.p99);
  });

  it('a worker that cannot reach the target refuses its share, naming itself', async () => {
    const path = writeConfig(`target_url: http://127.0.0.1:1
auth: { mode: none }
duration_seconds: 1
targets: [{ type: endpoint, name: e, method: GET, path: /e }]
`);
    const loaded = await loadPlanFile(path, {});
    if (!loaded.ok) throw new Error('invalid');
    const nc = await connect({ servers: nats.url });
    try {
      const assignment: Assignment = {
        run: 'probe',
        configPath: path,
        source: loaded.plan.source,
        target: { security: null, doctypes: {}, services: {} },
        shard: { index: 0, count: 1 },
        cleanup: false,
      };
      const reply = await nc.request(SUBJECTS.assign('w1'), JSON.stringify(assignment), { timeout: 30_000 });
      expect(reply.json()).toEqual({
        ok: false,
        code: 'target_unreachable',
        message: 'worker w1 cannot reach http://127.0.0.1:1 (ECONNREFUSED)',
      });
    } finally {
      await nc.close();
    }
  });

  it('marks the run incomplete (exit 9) when a worker is killed mid-run, naming it', async () => {
    let killed = false;
    const before = target.received.length;
    const watch = setInterval(() => {
      // Once the load is flowing, one worker dies without a word.
      if (!killed && target.received.length - before > 20) {
        killed = true;
        workers.get('w2')!.kill('SIGKILL');
      }
    }, 50);
    const { code, result, err } = await coordinate(6).finally(() => clearInterval(watch));
    expect(killed).toBe(true);
    expect(code).toBe(EXIT.incomplete);
    expect(result.verdict.status).toBe('incomplete');
    expect(result.distributed).toMatchObject({ incomplete: true });
    expect(result.distributed!.workers.find((w) => w.name === 'w2')!.lost).toBe(true);
    expect(result.distributed!.workers.find((w) => w.name === 'w1')!.lost).toBe(false);
    expect(err).toContain('worker w2 was lost; the run is incomplete');
  });
});
