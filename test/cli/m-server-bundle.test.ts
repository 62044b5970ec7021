/**
 * Which `m` commands run from the server's bundle (bin/m.js): serve, user, keys, audit, release and types
 * while dist/server/m.js is newer than their sources, `new` and `app` through tsx. The bundle is built into a
 * copy of the checkout's entry point (test/helpers/m-entry.ts), so the one other tests and servers run from
 * is never rewritten. A command from the bundle that reads a team's TypeScript app module registers tsx then.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { fileTempDir } from '../helpers/file-temp-dirs';
import { buildServerBundleInto, checkoutCopy, moduleLog, ROOT } from '../helpers/m-entry';

let copy: string;

/** Runs `node [--import <log>] bin/m.js <args>` in the copy. */
function m(args: string[], log?: string, env: NodeJS.ProcessEnv = {}) {
  const preload = log ? ['--import', log] : [];
  return spawnSync(process.execPath, [...preload, 'bin/m.js', ...args], {
    cwd: copy,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

beforeAll(() => {
  copy = checkoutCopy();
  buildServerBundleInto(join(copy, 'dist', 'server'));
  expect(m(['--bundle-current', 'server']).status).toBe(0);
}, 120_000);

describe('m from the server bundle', () => {
  it.each(['user', 'keys', 'audit', 'release', 'types'])(
    'runs m %s from dist/server/m.js, loading no TypeScript source',
    (command) => {
      const log = moduleLog();
      const run = m([command, '--help'], log.register);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain(`Usage: m ${command}`);
      expect(log.loaded()).toContain(pathToFileURL(join(copy, 'dist', 'server', 'm.js')).href);
      expect(log.loaded().filter((url) => /\.tsx?$/.test(url))).toEqual([]);
    },
  );

  it.each(['new', 'app'])('runs m %s through tsx, from the sources', (command) => {
    const log = moduleLog();
    const run = m([command, '--help'], log.register);
    expect(run.status, run.stderr).toBe(0);
    expect(log.loaded().some((url) => url.endsWith('/src/cli/main.ts'))).toBe(true);
    expect(log.loaded().some((url) => url.includes('/dist/server/'))).toBe(false);
  });

  it("reads a team's TypeScript app module from the bundle: m release publish gets as far as the server", () => {
    const app = join(fileTempDir('bundle-release-'), 'notes');
    mkdirSync(join(app, 'static', 'mfe'), { recursive: true });
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'notes', version: '1.0.0', type: 'module' }),
    );
    const crm = join(ROOT, 'backend', 'apps', 'crm', 'app.ts');
    writeFileSync(join(app, 'app.ts'), `export { crmApp as default } from ${JSON.stringify(crm)};\n`);
    writeFileSync(join(app, 'static', 'mfe', 'remoteEntry.js'), 'window.crm = 1;\n');
    const log = moduleLog();
    // No server listens on port 1: the command fails only once it has read the app and sends the release.
    const run = m(['release', 'publish', '--dir', app, '--url', 'http://127.0.0.1:1'], log.register, {
      PLATFORM_API_KEY: 'key:secret',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('network_error');
    expect(run.stderr).toContain('POST /api/releases/crm/publish');
    expect(log.loaded()).toContain(pathToFileURL(join(app, 'app.ts')).href);
    expect(log.loaded().some((url) => url.endsWith('/src/cli/main.ts'))).toBe(false);
  });
});
