import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, ROOT, waitForOutput } from './helpers/serve-process';

const temp = mkdtempSync(join(tmpdir(), 'fault-npm-'));
const pids: number[] = [];
afterAll(() => {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(temp, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

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
    const npm = spawn(
      'npm',
      ['start', '--', '--port', '0', '--data-dir', join(temp, 'data'), '--pid-file', pidFile],
      {
        cwd: temp,
        env: { ...process.env, PLATFORM_ADMIN_PASSWORD: ADMIN_PASSWORD, PORT: '', HOST: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    pids.push(npm.pid!);
    let out = '';
    npm.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    npm.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    const match = await waitForOutput(
      { child: npm, output: () => out, exited },
      /Desk: (http:\/\/\S+)\/desk\//,
    );
    const url = match[1]!;
    const serverPid = Number(readFileSync(pidFile, 'utf8').trim());
    pids.push(serverPid);
    expect(serverPid).not.toBe(npm.pid);
    expect((await fetch(`${url}/api/gateway/remotes`)).status).toBe(200);

    npm.kill('SIGTERM');
    await exited;
    for (let i = 0; i < 100 && alive(serverPid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(serverPid)).toBe(false);
    expect(out).toContain('m serve: stopped.');
    expect(existsSync(pidFile)).toBe(false);
    await expect(fetch(`${url}/api/gateway/remotes`)).rejects.toThrow();
  });
});
