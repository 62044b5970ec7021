import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../../backend/db/open-database';
import { readKeyRing } from '../../../backend/security/keys/key-dir';
import { blindIndexKey } from '../../../backend/vault/blind-index';
import { isCiphertext, kekIdOf } from '../../../backend/vault/field-cipher';
import { kekSources, openVaultKeys } from '../../../backend/vault/vault-keys';
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

  it('exits 2 for --app with a name that is not a service name', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(await keysCommand.run(['rotate', '--app', '../crm'])).toBe(KEYS_EXIT.usage);
    expect(await keysCommand.run(['rewrap', '--app', '../crm'])).toBe(KEYS_EXIT.usage);
  });

  it("rewrap --app crm moves a MACROSERVICE service's records off its own generated key", async () => {
    // As a crm service process leaves them: its database and generated key in <data_dir>/services/crm.
    const dataDir = mkdtempSync(join(tmpdir(), 'desk-cli-keys-rewrap-app-'));
    dirs.push(dataDir);
    const serviceDir = join(dataDir, 'services', 'crm');
    const binding = { doctype: 'crm.Customer', record: 'CUST-00001', field: 'email' };
    let db = await openDatabase({ dataDir: serviceDir });
    try {
      const generated = await openVaultKeys(db, kekSources(serviceDir, {}));
      await db.query(
        `INSERT INTO records (doctype, name, data) VALUES ('crm.Customer', 'CUST-00001', $1::jsonb)`,
        [
          JSON.stringify({
            customer_name: 'Ada',
            email: generated.cipher.encrypt('ada@example.com', binding),
          }),
        ],
      );
    } finally {
      await db.close();
    }
    const keyB = 'B'.repeat(40);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.stubEnv('PLATFORM_APPS', 'crm');
    vi.stubEnv('PLATFORM_DATABASE_URL', '');
    vi.stubEnv('PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY', '');
    vi.stubEnv('PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY_FILE', join(serviceDir, 'keys', 'records.kek'));
    vi.stubEnv('PLATFORM_RECORDS_KEY_ENCRYPTION_KEY', keyB);
    try {
      expect(await keysCommand.run(['rewrap', '--app', 'crm', '--data-dir', dataDir])).toBe(KEYS_EXIT.ok);
    } finally {
      vi.unstubAllEnvs();
    }
    expect(log.mock.calls.map((call) => String(call[0]))).toContain('crm.Customer: 1 checked, 1 rewrapped');
    // Nothing was created beside the service's directory, and key B alone opens its value.
    expect(existsSync(join(dataDir, 'db'))).toBe(false);
    db = await openDatabase({ dataDir: serviceDir });
    try {
      const underB = await openVaultKeys(
        db,
        kekSources(serviceDir, { PLATFORM_RECORDS_KEY_ENCRYPTION_KEY: keyB }),
      );
      const { rows } = await db.query<{ data: { email: string } }>(
        "SELECT data FROM records WHERE doctype = 'crm.Customer' AND name = 'CUST-00001'",
      );
      expect(underB.cipher.decrypt(rows[0]!.data.email, binding)).toBe('ada@example.com');
    } finally {
      await db.close();
    }
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

  it('rewrap moves the values of a DocType no configured app defines to the new key, which alone then reads them', async () => {
    // A data directory a server wrote under key A while serving an app the configuration does not name
    // (`m serve --app <dir>`): its DocType, notes.Note, is none of the configured apps' (crm here).
    const dataDir = mkdtempSync(join(tmpdir(), 'desk-cli-keys-rewrap-'));
    dirs.push(dataDir);
    const keyA = 'A'.repeat(40);
    const keyB = 'B'.repeat(40);
    const binding = (field: string) => ({ doctype: 'notes.Note', record: 'NOTE-00001', field });
    let db = await openDatabase({ dataDir });
    try {
      const underA = await openVaultKeys(
        db,
        kekSources(dataDir, { PLATFORM_RECORDS_KEY_ENCRYPTION_KEY: keyA }),
      );
      await db.query(
        `INSERT INTO records (doctype, name, data) VALUES ('notes.Note', 'NOTE-00001', $1::jsonb)`,
        [
          JSON.stringify({
            title: 'Visit',
            patient_email: underA.cipher.encrypt('ada@example.com', binding('patient_email')),
            [blindIndexKey('patient_email')]: underA.blindIndex.of(
              'notes.Note',
              'patient_email',
              'ada@example.com',
            ),
            body: underA.cipher.encrypt('allergic to penicillin', binding('body')),
          }),
        ],
      );
    } finally {
      await db.close();
    }
    // The old key from a file, the new one in the environment, as docs/operators.md has it; no app named.
    const oldKek = join(dataDir, 'old.kek');
    writeFileSync(oldKek, `${keyA}\n`, { mode: 0o600 });
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.stubEnv('PLATFORM_APPS', 'crm');
    vi.stubEnv('PLATFORM_DATABASE_URL', '');
    vi.stubEnv('PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY', '');
    vi.stubEnv('PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY_FILE', oldKek);
    vi.stubEnv('PLATFORM_RECORDS_KEY_ENCRYPTION_KEY', keyB);
    try {
      expect(await keysCommand.run(['rewrap', '--data-dir', dataDir])).toBe(KEYS_EXIT.ok);
    } finally {
      vi.unstubAllEnvs();
    }
    const printed = log.mock.calls.map((call) => String(call[0]));
    expect(printed).toContain('notes.Note: 1 checked, 1 rewrapped');
    const done = printed.find((line) => line.startsWith('rewrap done:'));
    // Its ciphertexts are all under the new key; a value it stored in clear could not be told apart
    // without its app, which the line says rather than claim every personal value.
    expect(done).toMatch(
      /^rewrap done: 1 records rewritten; every encrypted value is under key [0-9a-f]{16} \(notes\.Note: of no configured app, so only values already encrypted were looked for; .*name their app in apps and run again\)$/,
    );

    // The old key dropped: key B alone opens every sealed value, and the claim printed holds.
    db = await openDatabase({ dataDir });
    try {
      const underB = await openVaultKeys(
        db,
        kekSources(dataDir, { PLATFORM_RECORDS_KEY_ENCRYPTION_KEY: keyB }),
      );
      expect(done).toContain(`under key ${underB.cipher.kekId}`);
      const { rows } = await db.query<{ data: Record<string, unknown> }>(
        "SELECT data FROM records WHERE doctype = 'notes.Note' AND name = 'NOTE-00001'",
      );
      const data = rows[0]!.data;
      const sealed = Object.values(data).filter(isCiphertext);
      expect(sealed).toHaveLength(2);
      expect(sealed.map(kekIdOf)).toEqual([underB.cipher.kekId, underB.cipher.kekId]);
      expect(underB.cipher.decrypt(data.patient_email as string, binding('patient_email'))).toBe(
        'ada@example.com',
      );
      expect(underB.cipher.decrypt(data.body as string, binding('body'))).toBe('allergic to penicillin');
      // The blind index key is the same under either key-encryption key: the stored index still matches.
      expect(data[blindIndexKey('patient_email')]).toBe(
        underB.blindIndex.of('notes.Note', 'patient_email', 'ada@example.com'),
      );
      expect(data.title).toBe('Visit');
    } finally {
      await db.close();
    }
  });
});
