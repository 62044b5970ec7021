import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG_ENV_VARS, loadConfig, OTHER_ENV_VARS } from '../../backend/config/load-config';
import { FLAG_SOURCES } from '../../src/cli/commands/serve';
import { ROOT, spawnM } from './helpers/serve-process';

const temp = mkdtempSync(join(tmpdir(), 'fault-config-'));

/** What `m serve` runs: the launcher, the command and its modes, and the whole backend. */
const SERVE_SOURCES = [
  'bin/m.js',
  'src/cli/main.ts',
  'src/cli/commands/serve.ts',
  'src/cli/serve',
  'backend',
];

/**
 * Every environment variable the `m serve` sources read: `process.env.X` / `env.X`, and the `PLATFORM_*`
 * names they keep in constants. `HOME` only expands a leading `~` in an app path, as a shell would.
 */
function envVarsReadByServe(): Set<string> {
  const names = new Set<string>();
  const scan = (path: string) => {
    const full = join(ROOT, path);
    if (!/\.[jt]s$/.test(path)) {
      for (const entry of readdirSync(full, { withFileTypes: true })) {
        if (entry.isDirectory() || /\.[jt]s$/.test(entry.name)) scan(join(path, entry.name));
      }
      return;
    }
    const text = readFileSync(full, 'utf8');
    for (const m of text.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
    for (const m of text.matchAll(/['"`](PLATFORM_[A-Z0-9_]+)['"`]/g)) names.add(m[1]!);
  };
  for (const path of SERVE_SOURCES) scan(path);
  names.delete('HOME');
  return names;
}
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect((err as { code?: string }).code).toBe('config_invalid');
    return (err as Error).message;
  }
  throw new Error('expected a configuration error');
}

describe('a configuration error names the source of the bad value', () => {
  const file = join(temp, 'platform.toml');
  writeFileSync(file, '[tool.platform.server]\nport = 8000\n');

  it('names the environment variable, not the file, for PORT=abc', () => {
    const message = messageOf(() => loadConfig({ file, env: { PORT: 'abc' } }));
    expect(message).toContain('tool.platform.server.port');
    expect(message).toContain('environment variable PORT');
    expect(message).not.toContain(file);
  });

  it('names the flag for a bad --port', () => {
    const message = messageOf(() =>
      loadConfig({ file, env: {}, overrides: { 'server.port': 70_000 }, overrideSources: FLAG_SOURCES }),
    );
    expect(message).toContain('flag --port');
  });

  it('names the file and key for a bad value in platform.toml', () => {
    const bad = join(temp, 'bad.toml');
    writeFileSync(bad, '[tool.platform.server]\nport = "eighty"\n');
    const message = messageOf(() => loadConfig({ file: bad, env: {} }));
    expect(message).toContain('tool.platform.server.port');
    expect(message).toContain(bad);
  });

  it('m serve exits 78 on PORT=abc, naming PORT', async () => {
    const run = spawnM(['serve', '--data-dir', join(temp, 'unused')], { PORT: 'abc' });
    expect(await run.exited).toBe(78);
    expect(run.output()).toContain('environment variable PORT');
  });

  it('m serve --help lists every environment variable the command reads', async () => {
    const run = spawnM(['serve', '--help']);
    expect(await run.exited).toBe(0);
    const help = run.output();
    for (const { env } of [...CONFIG_ENV_VARS, ...OTHER_ENV_VARS]) expect(help).toContain(env);
    const read = envVarsReadByServe();
    expect(read.size).toBeGreaterThan(15);
    for (const env of read)
      expect(help, `m serve --help does not list ${env}`).toMatch(new RegExp(`\\b${env}\\b`));
    expect(help).toContain('PLATFORM_ADMIN_PASSWORD');
    expect(help).toContain('PLATFORM_INTERNAL_SECRET');
    expect(help).toContain('--pid-file');
  });
});
