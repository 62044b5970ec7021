import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/nats-server';
import { ADMIN_PASSWORD, alive, killAll, ROOT, spawnWatched, waitForOutput } from './helpers/serve-process';

const temp = mkdtempSync(join(tmpdir(), 'fault-macro-'));
let supervisor: ChildProcess | undefined;
const pids: number[] = [];
afterAll(() => {
  if (supervisor?.exitCode === null) supervisor.kill('SIGKILL');
  killAll(pids);
  rmSync(temp, { recursive: true, force: true });
});

/** Polls `check` every 250 ms, at most `tries` times (60 s by default); true once it held. */
async function until(check: () => Promise<boolean>, tries = 240): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await check().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

describe('npm run start:macro', () => {
  it('restarts a dead service with backoff while the gateway keeps serving, and stops everything on SIGINT', async () => {
    const port = await freePort();
    const proc = spawnWatched(process.execPath, ['scripts/start-macro.js', '--no-build'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '',
        PLATFORM_MACRO_SERVICES: 'crm',
        PLATFORM_DATA_DIR: join(temp, 'data'),
        PLATFORM_ADMIN_PASSWORD: ADMIN_PASSWORD,
        PLATFORM_NATS_URL: '',
      },
    });
    const { child, output } = proc;
    supervisor = child;
    const gateway = `http://127.0.0.1:${port}`;
    const started = (name: string) =>
      [...output().matchAll(new RegExp(`${name} started \\(PID (\\d+)\\)`, 'g'))].map((m) => Number(m[1]));
    await waitForOutput(proc, /crm started \(PID \d+\)/);
    for (const name of ['nats', 'gateway', 'crm']) pids.push(...started(name));
    // The service listing, not the remotes map, which leaves out a service whose UI remote is not built (a
    // fresh clone, started with --no-build).
    const crmListed = async () => {
      const res = await fetch(`${gateway}/api/gateway/services`);
      return res.status === 200 && (await res.text()).includes('"crm"');
    };
    expect(await until(crmListed)).toBe(true);

    const delays = () => [...output().matchAll(/restarting crm in ([\d.]+) s/g)].map((m) => Number(m[1]));
    // Killed twice in a row, crm is restarted each time, the second time after twice the delay (backoff).
    for (let death = 1; death <= 2; death++) {
      process.kill(started('crm')[death - 1]!, 'SIGKILL');
      expect(await until(async () => delays().length >= death)).toBe(true);
      // The gateway keeps answering while crm is down and comes back.
      expect((await fetch(`${gateway}/api/gateway/remotes`)).status).toBe(200);
      expect(await until(async () => started('crm').length > death)).toBe(true);
      pids.push(...started('crm'));
    }
    expect(delays()).toEqual([1, 2]);
    expect(await until(crmListed)).toBe(true);
    expect(started('gateway')).toHaveLength(1);

    child.kill('SIGINT');
    expect(await proc.exited).toBe(0);
    for (const pid of [...started('nats'), ...started('gateway'), ...started('crm')]) {
      expect(await until(async () => !alive(pid), 80)).toBe(true);
    }
  });
});
