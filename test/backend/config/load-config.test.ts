import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../backend/config/load-config';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tomlFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
  dirs.push(dir);
  const file = join(dir, 'platform.toml');
  writeFileSync(file, text);
  return file;
}

describe('loadConfig', () => {
  it('reads the shipped platform.toml with metadata-mode encryption', () => {
    const config = loadConfig({ file: 'platform.toml', env: {} });
    expect(config.mode).toBe('monolith');
    expect(config.security.payload_encryption.mode).toBe('metadata');
    expect(config.server.port).toBe(8000);
  });

  it('lets environment variables override the file', () => {
    const config = loadConfig({
      file: 'platform.toml',
      env: {
        PORT: '9100',
        PLATFORM_ENCRYPTION_MODE: 'STRICT',
        PLATFORM_MFE_PROXY_ENABLED: 'true',
        PLATFORM_UPSTREAM_TIMEOUT_MS: '300000',
      },
    });
    expect(config.server.port).toBe(9100);
    expect(config.desk.upstream_timeout_ms).toBe(300_000);
    expect(config.security.payload_encryption.mode).toBe('strict');
    expect(config.desk.mfe_proxy_enabled).toBe(true);
  });

  it('keeps PGlite on the baseline compiler unless PLATFORM_PGLITE_OPTIMIZE or server.pglite_optimize asks', () => {
    expect(loadConfig({ file: 'platform.toml', env: {} }).server.pglite_optimize).toBe(false);
    expect(
      loadConfig({ file: 'platform.toml', env: { PLATFORM_PGLITE_OPTIMIZE: '1' } }).server.pglite_optimize,
    ).toBe(true);
    const file = tomlFile('[tool.platform.server]\npglite_optimize = true\n');
    expect(loadConfig({ file, env: {} }).server.pglite_optimize).toBe(true);
    expect(() => loadConfig({ file, env: { PLATFORM_PGLITE_OPTIMIZE: 'maybe' } })).toThrow(
      /tool\.platform\.server\.pglite_optimize: .*set by environment variable PLATFORM_PGLITE_OPTIMIZE/,
    );
  });

  it('names every bad key and what is allowed', () => {
    const file = tomlFile(
      '[tool.platform.security.payload_encryption]\nmode = "loud"\n[tool.platform.server]\nprot = 1\n',
    );
    let error: { code?: string; message?: string } = {};
    try {
      loadConfig({ file, env: {} });
    } catch (e) {
      error = e as typeof error;
    }
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain(
      'tool.platform.security.payload_encryption.mode: must be one of "disabled", "selective", "metadata", "strict"',
    );
    expect(error.message).toContain('tool.platform.server: unknown key(s) prot');
  });

  it('rejects a bad environment value naming the key it overrides', () => {
    expect(() => loadConfig({ file: 'platform.toml', env: { PLATFORM_MFE_PROXY_ENABLED: 'maybe' } })).toThrow(
      /tool\.platform\.desk\.mfe_proxy_enabled/,
    );
  });

  it('reports a TOML syntax error with the file name', () => {
    const file = tomlFile('[tool.platform\nmode = ');
    expect(() => loadConfig({ file, env: {} })).toThrow(expect.objectContaining({ code: 'config_invalid' }));
  });

  it('reads server.trusted_proxies, empty by default, without a warning', () => {
    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    expect(loadConfig({ file: 'platform.toml', env: {}, warn }).server.trusted_proxies).toEqual([]);
    const file = tomlFile('[tool.platform.server]\ntrusted_proxies = ["10.0.0.1"]\n');
    expect(loadConfig({ file, env: {}, warn }).server.trusted_proxies).toEqual(['10.0.0.1']);
    expect(warnings).toEqual([]);
  });

  it('accepts the older spelling security.trusted_proxies with one warning naming where it was set', () => {
    const warnings: string[] = [];
    const file = tomlFile('[tool.platform.security]\ntrusted_proxies = ["10.0.0.2"]\n');
    const config = loadConfig({ file, env: {}, warn: (m) => warnings.push(m) });
    expect(config.server.trusted_proxies).toEqual(['10.0.0.2']);
    expect('trusted_proxies' in config.security).toBe(false);
    expect(warnings).toEqual([
      `tool.platform.security.trusted_proxies is deprecated (set in ${file}); rename it to tool.platform.server.trusted_proxies`,
    ]);

    const fromOverride: string[] = [];
    const overridden = loadConfig({
      file: 'platform.toml',
      env: {},
      overrides: { 'security.trusted_proxies': ['10.0.0.3'] },
      warn: (m) => fromOverride.push(m),
    });
    expect(overridden.server.trusted_proxies).toEqual(['10.0.0.3']);
    expect(fromOverride).toHaveLength(1);
  });

  it('refuses both spellings at once, and names the older key for a bad value set in it', () => {
    const both = tomlFile(
      '[tool.platform.server]\ntrusted_proxies = []\n[tool.platform.security]\ntrusted_proxies = []\n',
    );
    expect(() => loadConfig({ file: both, env: {}, warn: () => {} })).toThrow(
      expect.objectContaining({
        code: 'config_invalid',
        message: expect.stringContaining('are both set: keep tool.platform.server.trusted_proxies only'),
      }),
    );
    const bad = tomlFile('[tool.platform.security]\ntrusted_proxies = "10.0.0.1"\n');
    expect(() => loadConfig({ file: bad, env: {}, warn: () => {} })).toThrow(
      expect.objectContaining({
        code: 'config_invalid',
        message: expect.stringMatching(
          /tool\.platform\.server\.trusted_proxies: .*\(set by .*, key tool\.platform\.security\.trusted_proxies\)/,
        ),
      }),
    );
  });
});
