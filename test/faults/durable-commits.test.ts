/**
 * A write is acknowledged only once the WAL holding it is on disk (docs/operators.md#durability): a real
 * `m serve` runs under `strace -f -ttt -e trace=fsync,fdatasync`, and between a create's arrival and its
 * answer the server syncs at least once; twenty concurrent creates share syncs (group commit); with
 * `server.risk_losing_writes_on_power_loss` the same create is answered with no sync at all.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  killAll,
  ROOT,
  signIn,
  spawnWatched,
  type WatchedProcess,
  waitForOutput,
} from './helpers/serve-process';

const temp = mkdtempSync(join(tmpdir(), 'fault-durable-'));
const pids: number[] = [];

afterAll(() => {
  killAll(pids);
  rmSync(temp, { recursive: true, force: true });
});

interface Traced {
  proc: WatchedProcess;
  url: string;
  trace: string;
  stop(): Promise<void>;
}

/** `m serve` under strace, its sync calls written to `<temp>/<name>.trace` with epoch timestamps. */
async function tracedServe(name: string, toml = ''): Promise<Traced> {
  const config = join(temp, `${name}.toml`);
  writeFileSync(config, `[tool.platform.server]\n${toml}\n`);
  const trace = join(temp, `${name}.trace`);
  const proc = spawnWatched(
    'strace',
    [
      '-f',
      '-ttt',
      '-e',
      'trace=fsync,fdatasync',
      '-o',
      trace,
      process.execPath,
      'bin/m.js',
      'serve',
      '--port',
      '0',
      '--data-dir',
      join(temp, name),
      '--config',
      config,
    ],
    { cwd: ROOT, env: { ...process.env, PLATFORM_ADMIN_PASSWORD: ADMIN_PASSWORD, PORT: '', HOST: '' } },
  );
  pids.push(proc.child.pid!);
  const match = await waitForOutput(proc, /Desk: (http:\/\/\S+)\/desk\//);
  const server = Number(
    readFileSync(`/proc/${proc.child.pid}/task/${proc.child.pid}/children`, 'utf8').trim().split(/\s+/)[0],
  );
  pids.push(server);
  return {
    proc,
    url: match[1]!,
    trace,
    async stop() {
      process.kill(server, 'SIGTERM');
      await proc.exited;
    },
  };
}

/** The sync calls strace saw that started between `fromMs` and `toMs` (epoch milliseconds). */
function syncsBetween(trace: string, fromMs: number, toMs: number): number {
  let count = 0;
  for (const line of readFileSync(trace, 'utf8').split('\n')) {
    const match = /^\d+\s+(\d+\.\d+)\s+(fsync|fdatasync)\(/.exec(line);
    if (!match) continue;
    const at = Number(match[1]) * 1000;
    if (at >= fromMs && at <= toMs) count++;
  }
  return count;
}

async function create(url: string, session: Record<string, string>, name: string): Promise<number> {
  const res = await fetch(`${url}/api/resource/crm.Lead`, {
    method: 'POST',
    headers: { ...session, 'content-type': 'application/json' },
    body: JSON.stringify({ lead_name: name, source: 'Website' }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Runs `work` between two readings of the clock strace stamps with. */
async function window(work: () => Promise<unknown>): Promise<[number, number]> {
  const from = Date.now();
  await work();
  return [from, Date.now()];
}

describe('durable commits of the embedded database', () => {
  it('syncs the WAL between a create arriving and its 201, also for concurrent creates', async () => {
    const server = await tracedServe('synced');
    try {
      const session = await signIn(server.url);
      let status = 0;
      const [from, to] = await window(async () => {
        status = await create(server.url, session, 'Synced once');
      });
      expect(status).toBe(201);
      expect(syncsBetween(server.trace, from, to)).toBeGreaterThanOrEqual(1);

      const COMMITS = 20;
      const statuses: number[] = [];
      const [cFrom, cTo] = await window(async () => {
        statuses.push(
          ...(await Promise.all(
            Array.from({ length: COMMITS }, (_, i) => create(server.url, session, `Concurrent ${i}`)),
          )),
        );
      });
      expect(statuses).toEqual(Array(COMMITS).fill(201));
      // At least one sync before the last 201. How many commits share a sync depends on how the creates
      // interleave (and each create also commits its history entry), so the sharing itself is counted
      // deterministically in test/backend/db/wal-sync.test.ts.
      expect(syncsBetween(server.trace, cFrom, cTo)).toBeGreaterThanOrEqual(1);
    } finally {
      await server.stop();
    }
  });

  it('answers a create without any sync when the setting accepts the power-loss risk', async () => {
    const server = await tracedServe('unsynced', 'risk_losing_writes_on_power_loss = true');
    try {
      const session = await signIn(server.url);
      let status = 0;
      const [from, to] = await window(async () => {
        status = await create(server.url, session, 'Not synced');
      });
      expect(status).toBe(201);
      expect(syncsBetween(server.trace, from, to)).toBe(0);
    } finally {
      await server.stop();
    }
  });
});
