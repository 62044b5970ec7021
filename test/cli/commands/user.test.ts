import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseUserFlags, runUser, USER_EXIT, userCommand } from '../../../src/cli/commands/user';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('m user: arguments', () => {
  it('parses add with roles, roles with positional roles, and the target', () => {
    expect(parseUserFlags(['add', 'ada', '--role', 'Stock User', '--role', 'Sales User'], {})).toMatchObject({
      action: 'add',
      name: 'ada',
      roles: ['Stock User', 'Sales User'],
    });
    expect(parseUserFlags(['roles', 'ada', 'Stock User', 'Support Agent'], {})).toMatchObject({
      action: 'roles',
      roles: ['Stock User', 'Support Agent'],
    });
    expect(parseUserFlags(['list'], { PLATFORM_URL: 'http://127.0.0.1:1' })).toMatchObject({
      url: 'http://127.0.0.1:1',
    });
  });

  it('exits 2 on a usage error', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(await userCommand.run(['shred'])).toBe(USER_EXIT.usage);
    expect(await userCommand.run(['add', 'ada'])).toBe(USER_EXIT.usage);
    expect(await userCommand.run(['list', 'ada'])).toBe(USER_EXIT.usage);
  });
});

describe('m user on a stopped server', () => {
  it('adds, lists, changes roles, sets a password and disables users in the data directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'desk-cli-user-'));
    dirs.push(dataDir);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const env = { PW: 'clerk-password-1', PW2: 'clerk-password-2' };
    const base = { dataDir, roles: [] as string[], json: false };
    expect(
      await runUser({ ...base, action: 'add', name: 'clerk', roles: ['Stock User'], passwordEnv: 'PW' }, env),
    ).toBe(USER_EXIT.ok);
    expect(
      await runUser({ ...base, action: 'roles', name: 'clerk', roles: ['Stock User', 'Support Agent'] }, env),
    ).toBe(USER_EXIT.ok);
    expect(await runUser({ ...base, action: 'passwd', name: 'clerk', passwordEnv: 'PW2' }, env)).toBe(
      USER_EXIT.ok,
    );
    expect(await runUser({ ...base, action: 'disable', name: 'clerk' }, env)).toBe(USER_EXIT.ok);
    log.mockClear();
    expect(await runUser({ ...base, action: 'list', json: true }, env)).toBe(USER_EXIT.ok);
    const users = JSON.parse(String(log.mock.calls[0]![0])) as Array<{ name: string }>;
    expect(users).toContainEqual({ name: 'clerk', roles: ['Stock User', 'Support Agent'], enabled: false });
    expect(await runUser({ ...base, action: 'enable', name: 'clerk' }, env)).toBe(USER_EXIT.ok);
    log.mockClear();
    expect(await runUser({ ...base, action: 'list', json: true }, env)).toBe(USER_EXIT.ok);
    expect(JSON.parse(String(log.mock.calls[0]![0]))).toContainEqual({
      name: 'clerk',
      roles: ['Stock User', 'Support Agent'],
      enabled: true,
    });
    expect(await runUser({ ...base, action: 'roles', name: 'nobody', roles: [] }, env)).toBe(
      USER_EXIT.failed,
    );
    // Offline too, from the installed apps' rules: a typo is warned about, the change stands.
    const error = vi.mocked(console.error);
    error.mockClear();
    expect(await runUser({ ...base, action: 'roles', name: 'clerk', roles: ['Sales user'] }, env)).toBe(
      USER_EXIT.ok,
    );
    expect(String(error.mock.calls[0]?.[0])).toMatch(
      /^m user: warning: no permission rule names "Sales user"/,
    );
    expect(String(error.mock.calls[0]?.[0])).toContain('Sales User');
    // The users API's rules hold here too: no 1-character password set offline.
    const weak = { X: 'x' };
    expect(
      await runUser({ ...base, action: 'add', name: 'weak', roles: ['Stock User'], passwordEnv: 'X' }, weak),
    ).toBe(USER_EXIT.failed);
    expect(await runUser({ ...base, action: 'passwd', name: 'clerk', passwordEnv: 'X' }, weak)).toBe(
      USER_EXIT.failed,
    );
    log.mockClear();
    await runUser({ ...base, action: 'list', json: true }, env);
    expect(JSON.parse(String(log.mock.calls[0]![0]))).not.toContainEqual(
      expect.objectContaining({ name: 'weak' }),
    );
    // Each command opens the data directory's database anew, as separate `m user` runs do: slow on PGlite.
  }, 240_000);
});

describe('m user on a directory holding no database', () => {
  it('refuses to list or change users there instead of creating an empty database', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'desk-cli-user-'));
    dirs.push(parent);
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const dataDir = join(parent, 'mistyped');
    const base = { dataDir, roles: [] as string[], json: false };
    expect(await runUser({ ...base, action: 'list' }, {})).toBe(USER_EXIT.failed);
    expect(await runUser({ ...base, action: 'disable', name: 'clerk' }, {})).toBe(USER_EXIT.failed);
    expect(String(error.mock.calls[0]![0])).toContain('holds no database');
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('m user beside a running server on the same data directory', () => {
  it('is refused with data_dir_locked instead of writing users the server would lose', async () => {
    const { claimDataDir } = await import('../../../backend/data-dir/data-dir');
    const dataDir = mkdtempSync(join(tmpdir(), 'desk-cli-user-'));
    dirs.push(dataDir);
    // The server's hold on its directory, as `m serve` takes it.
    const server = await claimDataDir(dataDir);
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.spyOn(console, 'log').mockImplementation(() => {});
    const env = { PW: 'clerk-password-1' };
    const add = { dataDir, json: false, action: 'add' as const, name: 'clerk', roles: ['Stock User'] };
    try {
      expect(await runUser({ ...add, passwordEnv: 'PW' }, env)).toBe(USER_EXIT.failed);
      expect(error.mock.calls.flat().join('\n')).toMatch(/m serve|data_dir_locked|in use|another process/i);
    } finally {
      server.release();
    }
  }, 60_000);
});

describe('m user against a running server', () => {
  it('lists and adds users through the users API with an administrator API key', async () => {
    const { createTestApp } = await import('../../helpers/test-app');
    const { apiKeyAuthorization } = await import('../../helpers/auth');
    const { startServer } = await import('../../../backend/server');
    // selective mode: the users API's password-carrying calls must arrive as JWEs.
    const t = await createTestApp({ config: { 'security.payload_encryption.mode': 'selective' } });
    const server = await startServer(t.app, { host: '127.0.0.1', port: 0 });
    try {
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      const env = {
        PLATFORM_API_KEY: (await apiKeyAuthorization(t.ctx)).replace(/^token /, ''),
        PW: 'remote-password-1',
      };
      const base = { url: server.url, roles: [] as string[], json: true };
      expect(
        await runUser(
          { ...base, action: 'add', name: 'remote.clerk', roles: ['Stock User'], passwordEnv: 'PW' },
          env,
        ),
      ).toBe(USER_EXIT.ok);
      log.mockClear();
      expect(await runUser({ ...base, action: 'list' }, env)).toBe(USER_EXIT.ok);
      const users = JSON.parse(String(log.mock.calls[0]![0])) as unknown[];
      expect(users).toContainEqual({ name: 'remote.clerk', roles: ['Stock User'], enabled: true });
      const error = vi.spyOn(console, 'error').mockImplementation(() => {});
      // A role no rule names is given, and warned about: a typo would otherwise grant nothing in silence.
      expect(
        await runUser(
          { ...base, action: 'roles', name: 'remote.clerk', roles: ['Stock User', 'Stock user'] },
          env,
        ),
      ).toBe(USER_EXIT.ok);
      expect(error.mock.calls.map((c) => String(c[0]))).toEqual([
        expect.stringMatching(/^m user: warning: no permission rule names "Stock user", .*Stock User/),
      ]);
      expect(await runUser({ ...base, action: 'list' }, { PLATFORM_API_KEY: 'nope:nope' })).toBe(
        USER_EXIT.failed,
      );
      // The rules are said as on a stopped server's database, not as "the request body is not valid".
      error.mockClear();
      const short = { ...env, PW: 'short' };
      expect(
        await runUser({ ...base, action: 'add', name: 'remote.short', roles: [], passwordEnv: 'PW' }, short),
      ).toBe(USER_EXIT.failed);
      expect(
        await runUser({ ...base, action: 'add', name: 'trailing space ', roles: [], passwordEnv: 'PW' }, env),
      ).toBe(USER_EXIT.failed);
      expect(error.mock.calls.map((c) => String(c[0]))).toEqual([
        'm user add: A password has 8 to 1024 characters.',
        'm user add: A user name is printable, at most 140 characters, without surrounding spaces.',
      ]);
      // Checked before sending, in the offline order and words: a bad name and a bad password read as the
      // name's rule (not "the request body is not valid"), even with a key the server would refuse, and a
      // new password as its rule.
      error.mockClear();
      expect(
        await runUser({ ...base, action: 'add', name: ' both ', roles: [], passwordEnv: 'PW' }, short),
      ).toBe(USER_EXIT.failed);
      expect(
        await runUser(
          { ...base, action: 'add', name: 'remote.nokey', roles: [], passwordEnv: 'PW' },
          { ...short, PLATFORM_API_KEY: 'nope:nope' },
        ),
      ).toBe(USER_EXIT.failed);
      expect(
        await runUser({ ...base, action: 'passwd', name: 'remote.clerk', passwordEnv: 'PW' }, short),
      ).toBe(USER_EXIT.failed);
      // What only the server checks is said with the fields it names.
      expect(
        await runUser(
          { ...base, action: 'add', name: 'remote.badrole', roles: ['1 not a role'], passwordEnv: 'PW' },
          env,
        ),
      ).toBe(USER_EXIT.failed);
      expect(error.mock.calls.map((c) => String(c[0]))).toEqual([
        'm user add: A user name is printable, at most 140 characters, without surrounding spaces.',
        'm user add: A password has 8 to 1024 characters.',
        'm user passwd: A password has 8 to 1024 characters.',
        'm user add: The request body is not valid. (roles.0: Invalid value.)',
      ]);
    } finally {
      await server.close();
      await t.close();
    }
  }, 120_000);
});
