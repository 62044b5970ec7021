import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, alive, killAll, ROOT, spawnWatched, waitForOutput } from './helpers/serve-process';

const temp = mkdtempSync(join(tmpdir(), 'fault-npm-'));
const pids: number[] = [];
afterAll(() => {
  killAll(pids);
  rmSync(temp, { recursive: true, force: true });
});

describe('npm start', () => {
  it('forwards SIGTERM to the server: it stops, frees its port and removes its --pid-file', async () => {
    // The repository's own start script, run by npm from a copy of package.json whose only difference is that
    // it skips the build step (which is not what is tested here) and points at this checkout's bin/m.js.
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: { start: string };
    };
    expect(pkg.scripts.start.startsWith('exec ')).toBe(true);
    const script = pkg.scripts.start
      .replace(' --build-missing', '')
      .replace('bin/m.js', join(ROOT, 'bin', 'm.js'));
    writeFileSync(
      join(temp, 'package.json'),
      JSON.stringify({ name: 'start-copy', private: true, scripts: { start: script } }),
    );
    const pidFile = join(temp, 'server.pid');
    const proc = spawnWatched(
      'npm',
      ['start', '--', '--port', '0', '--data-dir', join(temp, 'data'), '--pid-file', pidFile],
      { cwd: temp, env: { ...process.env, PLATFORM_ADMIN_PASSWORD: ADMIN_PASSWORD, PORT: '', HOST: '' } },
    );
    const npm = proc.child;
    pids.push(npm.pid!);
    const match = await waitForOutput(proc, /Desk: (http:\/\/\S+)\/desk\//);
    const url = match[1]!;
    const serverPid = Number(readFileSync(pidFile, 'utf8').trim());
    pids.push(serverPid);
    expect(serverPid).not.toBe(npm.pid);
    expect((await fetch(`${url}/api/gateway/remotes`)).status).toBe(200);

    npm.kill('SIGTERM');
    await proc.exited;
    for (let i = 0; i < 100 && alive(serverPid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(serverPid)).toBe(false);
    expect(proc.output()).toContain('m serve: stopped.');
    expect(existsSync(pidFile)).toBe(false);
    await expect(fetch(`${url}/api/gateway/remotes`)).rejects.toThrow();
  });
});
