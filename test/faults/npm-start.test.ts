import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript build script without type declarations
import { targets } from '../../scripts/build.js';
import { ADMIN_PASSWORD, alive, killAll, ROOT, spawnWatched, waitForOutput } from './helpers/serve-process';

const temp = mkdtempSync(join(tmpdir(), 'fault-npm-'));
const pids: number[] = [];
afterAll(() => {
  killAll(pids);
  rmSync(temp, { recursive: true, force: true });
});

describe('npm start', () => {
  it('reports each build step, then forwards SIGTERM to the server: it stops, frees its port and removes its --pid-file', async () => {
    // The repository's own start script, run by npm from a copy of package.json whose only difference is that
    // it points at this checkout's bin/m.js. Its build step finds this checkout built (the outputs are current
    // unless a source changed since) and only reports so, step by step.
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: { start: string };
    };
    expect(pkg.scripts.start.startsWith('exec ')).toBe(true);
    expect(pkg.scripts.start).toContain(' --build-missing');
    const script = pkg.scripts.start.replace('bin/m.js', join(ROOT, 'bin', 'm.js'));
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
    // A line per build step (the server and harness bundles, the shell, each app's remote), done or found up
    // to date; nothing a user cannot act on: no bundler notice, no size-budget figures (those need --verbose).
    const started = proc.output();
    const steps = ['server', 'harness', ...(targets() as Array<{ name: string }>).map((t) => t.name)];
    expect(steps).toEqual(expect.arrayContaining(['server', 'harness', 'shell', 'crm']));
    for (const step of steps) {
      expect(started).toMatch(new RegExp(`^build: ${step} (up to date \\(|done in \\d+\\.\\d s)`, 'm'));
    }
    expect(started).toMatch(/^build: done in \d+\.\d s$/m);
    expect(started).not.toMatch(/^<w>|first screen JS|budget/m);

    npm.kill('SIGTERM');
    await proc.exited;
    for (let i = 0; i < 100 && alive(serverPid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(serverPid)).toBe(false);
    expect(proc.output()).toContain('m serve: stopped.');
    expect(existsSync(pidFile)).toBe(false);
    await expect(fetch(`${url}/api/gateway/remotes`)).rejects.toThrow();
  });
});
