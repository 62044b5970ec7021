import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startRecordingServer } from './helpers/recording-server';
import { tempDir, writeConfig } from './helpers/runtime';

const root = join(import.meta.dirname, '..', '..');
const env = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' };

function run(cmd: string, args: string[]) {
  return spawnSync(cmd, args, { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
}

describe('entry points', () => {
  it('m benchmark runs the harness', () => {
    const r = run(process.execPath, ['bin/m.js', 'benchmark', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: m benchmark --config <file.yaml>');
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
      const code = await new Promise<number | null>((resolve) => {
        const child = spawn(
          process.execPath,
          ['dist/benchmarks/load-test.js', '--config', path, '--out', tempDir()],
          {
            cwd: root,
            stdio: 'ignore',
          },
        );
        child.on('exit', resolve);
      });
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
});
