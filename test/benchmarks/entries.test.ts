import { spawn, spawnSync } from 'node:child_process';
import { cpSync, readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutCopy, type ModuleLog, moduleLog } from '../helpers/m-entry';
import { startRecordingServer } from './helpers/recording-server';
import { tempDir, writeConfig } from './helpers/runtime';

const root = join(import.meta.dirname, '..', '..');
const env = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' };

function run(cmd: string, args: string[]) {
  return spawnSync(cmd, args, { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
}

/** Runs the built bundle on `config`, writing into `out`, to its exit (the test's time limit applies). */
function runBundle(config: string, out: string, execArgv: string[] = []): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [...execArgv, 'dist/benchmarks/load-test.js', '--config', config, '--out', out],
      { cwd: root, stdio: 'ignore' },
    );
    child.on('exit', resolve);
  });
}

/** Runs `node <args>` in `cwd` to its exit, without blocking this process (its servers answer). */
function runNode(args: string[], cwd = root): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd, stdio: 'ignore' });
    child.on('exit', resolve);
  });
}

/** A plan of GETs of `path` on `url` at 20 requests/s for 1 s, its thresholds out of a busy machine's reach. */
function oneSecondPlan(url: string, path: string): string {
  return writeConfig(`target_url: ${url}
auth: { mode: none }
rate: { requests_per_second: 20 }
duration_seconds: 1
generator: { max_event_loop_lag_ms: 60000 }
thresholds: { p95_ms: 600000 }
targets: [{ type: endpoint, name: e, method: GET, path: ${path} }]
`);
}

/** The packages and sources whose code is in the bundle's chunks that a command loaded. */
function loadedCode(log: ModuleLog): string {
  return log
    .loaded()
    .filter((url) => url.includes('/dist/benchmarks/'))
    .map((url) => readFileSync(new URL(url), 'utf8'))
    .join('\n');
}

describe('entry points', () => {
  it('m benchmark runs the harness', () => {
    const r = run(process.execPath, ['bin/m.js', 'benchmark', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: m benchmark --config <file.yaml>');
  });

  it('m benchmark runs the built harness while it is newer than its sources, else the sources through tsx', async () => {
    expect(run('npm', ['run', '--silent', 'build:harness']).status).toBe(0);
    // A checkout of its own whose bin/m.js and built harness are copies and whose sources are this one's:
    // making its harness stale below cannot make a server started meanwhile from this checkout rebuild it.
    const copy = checkoutCopy();
    cpSync(join(root, 'dist', 'benchmarks'), join(copy, 'dist', 'benchmarks'), {
      recursive: true,
      preserveTimestamps: true,
    });
    const inCopy = (args: string[]) =>
      spawnSync(process.execPath, args, { cwd: copy, env, encoding: 'utf8', timeout: 60_000 });
    expect(inCopy(['bin/m.js', '--bundle-current', 'harness']).status).toBe(0);
    const server = await startRecordingServer();
    try {
      const log = moduleLog();
      const path = oneSecondPlan(server.url, '/from-m');
      const out = tempDir();
      const args = ['--import', log.register, 'bin/m.js', 'benchmark', '--config', path, '--out', out];
      expect(await runNode(args, copy)).toBe(0);
      expect(server.received.some((r) => r.path === '/from-m')).toBe(true);
      expect(JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')).total.count).toBeGreaterThan(0);
      const loaded = log.loaded();
      expect(loaded.some((url) => url.endsWith(`${copy}/dist/benchmarks/load-test.js`))).toBe(true);
      expect(loaded.filter((url) => url.includes('/src/'))).toEqual([]);

      // Older than its sources (as after an edit): the sources run, through tsx.
      const entry = join(copy, 'dist', 'benchmarks', 'load-test.js');
      utimesSync(entry, new Date(0), new Date(0));
      expect(inCopy(['bin/m.js', '--bundle-current', 'harness']).status).toBe(1);
      log.clear();
      const stale = inCopy(['--import', log.register, 'bin/m.js', 'benchmark', '--help']);
      expect(stale.stdout).toContain('Usage: m benchmark --config <file.yaml>');
      const fromSource = log.loaded();
      expect(fromSource.some((url) => url.endsWith('/src/benchmarks/cli.ts'))).toBe(true);
      expect(fromSource.some((url) => url.includes('/dist/benchmarks/'))).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('python -m platform_studio.benchmarks.load_test runs the same harness with its exit codes', () => {
    const bad = writeConfig('target_url: http://127.0.0.1:1\nauth: { mode: none }\ntargets: []\n');
    const r = run('python3', ['-m', 'platform_studio.benchmarks.load_test', '--config', bad]);
    expect(r.status).toBe(4);
    expect(r.stderr).toContain(`${bad}:3:10  invalid_value  targets`);
  });

  it('the Python entry passes --dry-run through and prints the resolved plan', () => {
    const path = writeConfig(
      'target_url: http://127.0.0.1:1\nauth: { mode: none }\ntargets: [{ type: rpc, name: r, method: crm.api.ping }]\n',
    );
    const r = run('python3', ['-m', 'platform_studio.benchmarks.load_test', '--config', path, '--dry-run']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('rpc: crm.api.ping');
  });

  it('the built bundle runs TypeScript factories, also from a directory that is no ES module package', async () => {
    expect(run('npm', ['run', '--silent', 'build:harness']).status).toBe(0);
    const server = await startRecordingServer();
    try {
      const path = writeConfig(
        `target_url: ${server.url}
auth: { mode: custom, factory: ./f.ts#headers }
users: { peak: 2, think_time_seconds: 0.05 }
duration_seconds: 1
generator: { max_event_loop_lag_ms: 60000 }
thresholds: { p95_ms: 600000 }
targets: [{ type: endpoint, name: e, method: POST, path: /x, body_factory: f.body }]
`,
        {
          'f.ts':
            "export function headers(ctx: { user: number }): Record<string, string> { return { 'X-User': 'u' + ctx.user }; }\n" +
            'export const body = (): { a: number } => ({ a: 1 });\n',
        },
      );
      const code = await runBundle(path, tempDir());
      expect(code).toBe(0);
      const hits = server.received.filter((r) => r.path === '/x');
      expect(hits.length).toBeGreaterThan(0);
      expect(
        hits.every((r) => /^u[01]$/.test(String(r.headers['x-user'])) && JSON.parse(r.body).a === 1),
      ).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('the built bundle starts its generator threads from its entry beside the chunks', async () => {
    expect(run('npm', ['run', '--silent', 'build:harness']).status).toBe(0);
    const server = await startRecordingServer();
    try {
      const out = tempDir();
      const path = writeConfig(
        `target_url: ${server.url}
auth: { mode: none }
users: { peak: 4, think_time_seconds: 0.02 }
duration_seconds: 1
generator: { workers: 2, max_event_loop_lag_ms: 60000 }
thresholds: { p95_ms: 600000 }
targets: [{ type: endpoint, name: e, method: GET, path: /threads }]
`,
      );
      expect(await runBundle(path, out)).toBe(0);
      const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8'));
      expect(result.config.workers).toBe(2);
      // Each thread runs two of the four users (closed model: no rate to fall behind on a busy machine).
      expect(result.total.count).toBe(server.received.filter((r) => r.path === '/threads').length);
      expect(result.total.count).toBeGreaterThan(0);
      expect(result.timeline.some((p: { users: number }) => p.users === 4)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('a run against plain http never loads the https client, NATS, the cryptography, the live servers or faker', async () => {
    expect(run('npm', ['run', '--silent', 'build:harness']).status).toBe(0);
    const server = await startRecordingServer();
    try {
      const log = moduleLog();
      const path = oneSecondPlan(server.url, '/plain');
      expect(await runBundle(path, tempDir(), ['--import', log.register])).toBe(0);
      expect(server.received.some((r) => r.path === '/plain')).toBe(true);
      const code = loadedCode(log);
      // The run wrote its HTML report: the chunks it loaded are in the log.
      expect(code).toContain('src/benchmarks/report/html-report.ts');
      for (const unused of [
        'node_modules/undici/',
        'node_modules/@nats-io/',
        'node_modules/jose/',
        'src/benchmarks/live/live-server.ts',
        'src/benchmarks/dry-run.ts',
        'src/benchmarks/report/compare.ts',
        // faker (only plans that name it), the histogram library's index (its WebAssembly build, pako, the
        // log writer) and zod's message locales other than English.
        'node_modules/@faker-js/',
        'node_modules/pako/',
        'node_modules/hdr-histogram-js/dist/HistogramLogWriter.js',
        'node_modules/zod/v4/locales/de.js',
      ])
        expect(code).not.toContain(unused);
    } finally {
      await server.close();
    }
  });
});
