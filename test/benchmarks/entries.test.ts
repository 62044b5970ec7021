import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeConfig } from './helpers/runtime';

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
});
