import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readKeyRing } from '../../../backend/security/keys/key-dir';
import { KEYS_EXIT, keysCommand } from '../../../src/cli/commands/keys';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('m keys', () => {
  it('rotate adds an active key and retires the previous one; list shows both', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'desk-cli-keys-'));
    dirs.push(dataDir);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    expect(await keysCommand.run(['rotate', '--data-dir', dataDir])).toBe(KEYS_EXIT.ok);
    expect(await keysCommand.run(['rotate', '--data-dir', dataDir])).toBe(KEYS_EXIT.ok);
    const ring = await readKeyRing(join(dataDir, 'keys'));
    expect(ring.keys).toHaveLength(2);
    expect(ring.keys[0]!.retired_at).toBeNull();
    expect(ring.keys[1]!.retired_at).not.toBeNull();

    log.mockClear();
    expect(await keysCommand.run(['list', '--data-dir', dataDir, '--json'])).toBe(KEYS_EXIT.ok);
    const listed = JSON.parse(String(log.mock.calls[0]![0])) as {
      keys: Array<{ kid: string; status: string }>;
    };
    expect(listed.keys.map((k) => k.kid)).toEqual(ring.keys.map((k) => k.kid));
    expect(listed.keys[0]!.status).toBe('active');
    expect(listed.keys[1]!.status).toMatch(/^retired, decrypts until /);
  });

  it("--app acts on a service's own ring and shows its kids as the service publishes them", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'desk-cli-keys-app-'));
    dirs.push(dataDir);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    // A MACROSERVICE config with a key-encryption key set still leaves the gateways' shared ring alone.
    vi.stubEnv('PLATFORM_MODE', 'macroservice');
    vi.stubEnv('PLATFORM_KEY_ENCRYPTION_KEY', 'cli-keys-test-key-encryption-key-0123456789');
    try {
      expect(await keysCommand.run(['rotate', '--app', 'crm', '--data-dir', dataDir])).toBe(KEYS_EXIT.ok);
    } finally {
      vi.unstubAllEnvs();
    }
    const ring = await readKeyRing(join(dataDir, 'services', 'crm', 'keys'));
    expect(ring.keys).toHaveLength(1);
    expect((await readKeyRing(join(dataDir, 'keys'))).keys).toHaveLength(0);
    expect(String(log.mock.calls[0]![0])).toContain(`new active key svc:crm:${ring.keys[0]!.kid} in `);

    log.mockClear();
    expect(await keysCommand.run(['list', '--app', 'crm', '--data-dir', dataDir, '--json'])).toBe(
      KEYS_EXIT.ok,
    );
    const listed = JSON.parse(String(log.mock.calls[0]![0])) as { keys: Array<{ kid: string }> };
    expect(listed.keys.map((k) => k.kid)).toEqual([`svc:crm:${ring.keys[0]!.kid}`]);
  });

  it('exits 2 for --app with rewrap or with a name that is not a service name', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(await keysCommand.run(['rewrap', '--app', 'crm'])).toBe(KEYS_EXIT.usage);
    expect(await keysCommand.run(['rotate', '--app', '../crm'])).toBe(KEYS_EXIT.usage);
  });

  it('exits 2 on a usage error', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(await keysCommand.run(['shred'])).toBe(KEYS_EXIT.usage);
    expect(await keysCommand.run(['list', '--bogus'])).toBe(KEYS_EXIT.usage);
  });

  it('rewrap --help says which keys a rewrap needs; a directory with no database is refused', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    expect(await keysCommand.run(['rewrap', '--help'])).toBe(KEYS_EXIT.ok);
    const help = String(log.mock.calls[0]![0]);
    expect(help).toMatch(/^Usage: m keys rewrap/);
    expect(help).toContain('PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY');
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const parent = mkdtempSync(join(tmpdir(), 'desk-cli-keys-'));
    dirs.push(parent);
    const missing = join(parent, 'mistyped');
    vi.stubEnv('PLATFORM_RECORDS_KEY_ENCRYPTION_KEY', 'k'.repeat(40));
    try {
      expect(await keysCommand.run(['rewrap', '--data-dir', missing])).toBe(KEYS_EXIT.failed);
    } finally {
      vi.unstubAllEnvs();
    }
    expect(String(error.mock.calls[0]![0])).toContain('holds no database');
    expect(existsSync(missing)).toBe(false);
  });
});
