import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';
import {
  GENERATED_KEK_FILE,
  kekSources,
  openVaultKeys,
  PREVIOUS_RECORDS_KEK_ENV,
  RECORDS_KEK_ENV,
} from '../../../backend/vault/vault-keys';

const temp = mkdtempSync(join(tmpdir(), 'vault-keys-'));
const opened: Database[] = [];
afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
  rmSync(temp, { recursive: true, force: true });
});

async function memoryDb(): Promise<Database> {
  const db = await openDatabase({ memory: true });
  opened.push(db);
  return db;
}

/** The message of a refused opening (the test fails if it opened). */
async function refusal(opening: Promise<unknown>): Promise<string> {
  return opening.then(
    () => 'opened',
    (err: Error) => err.message,
  );
}

const binding = { doctype: 'crm.Customer', record: 'CUST-00001', field: 'email' };

describe('the keys of personal data at rest', () => {
  it('generates a private key file on first start and opens the same keys from it afterwards', async () => {
    const db = await memoryDb();
    const dataDir = join(temp, 'generated');
    const first = await openVaultKeys(db, kekSources(dataDir, {}));
    const file = join(dataDir, 'keys', GENERATED_KEK_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.source).toBe('file');
    const stored = first.cipher.encrypt('ada@example.com', binding);
    expect(readFileSync(file, 'utf8')).not.toContain('ada');
    const again = await openVaultKeys(db, kekSources(dataDir, {}));
    expect(again.cipher.decrypt(stored, binding)).toBe('ada@example.com');
    expect(again.blindIndex.of('crm.Customer', 'email', 'ada@example.com')).toBe(
      first.blindIndex.of('crm.Customer', 'email', 'ada@example.com'),
    );
  });

  it('prefers the configured key and refuses a database written under another one (config_invalid)', async () => {
    const db = await memoryDb();
    const env = { [RECORDS_KEK_ENV]: 'a'.repeat(40) };
    const keys = await openVaultKeys(db, kekSources(join(temp, 'unused'), env));
    expect(keys.source).toBe('env');
    await expect(
      openVaultKeys(db, kekSources(join(temp, 'unused'), { [RECORDS_KEK_ENV]: 'b'.repeat(40) })),
    ).rejects.toMatchObject({ code: 'config_invalid' });
    await expect(
      openVaultKeys(await memoryDb(), kekSources(temp, { [RECORDS_KEK_ENV]: 'short' })),
    ).rejects.toMatchObject({ code: 'config_invalid' });
  });

  it('binds each value to its DocType, record and field', async () => {
    const keys = await openVaultKeys(await memoryDb(), kekSources(temp, {}, {}));
    const stored = keys.cipher.encrypt({ nested: [1, 'two'] }, binding);
    expect(keys.cipher.decrypt(stored, binding)).toEqual({ nested: [1, 'two'] });
    for (const other of [
      { ...binding, record: 'CUST-00002' },
      { ...binding, field: 'phone' },
      { ...binding, doctype: 'crm.Lead' },
    ]) {
      expect(() => keys.cipher.decrypt(stored, other)).toThrow(
        expect.objectContaining({ code: 'integrity_failed' }),
      );
    }
  });

  it('refuses a mistyped key on a directory under its generated key, and moves to a named one', async () => {
    const db = await memoryDb();
    const dataDir = join(temp, 'moving');
    const generated = await openVaultKeys(db, kekSources(dataDir, {}));
    const stored = generated.cipher.encrypt('ada@example.com', binding);
    const wrappedBefore = (await db.query('SELECT kek_id, wrapped FROM vault_keys')).rows;
    const file = join(dataDir, 'keys', GENERATED_KEK_FILE);

    // Not taken for a rotation: nothing named the generated file as the previous key.
    const mistyped = openVaultKeys(db, kekSources(dataDir, { [RECORDS_KEK_ENV]: 'm'.repeat(40) }));
    await expect(mistyped).rejects.toMatchObject({ code: 'config_invalid' });
    const message = await refusal(mistyped);
    expect(message).toContain(RECORDS_KEK_ENV);
    expect(message).toContain(`${PREVIOUS_RECORDS_KEK_ENV}_FILE=${file}`);
    expect((await db.query('SELECT kek_id, wrapped FROM vault_keys')).rows).toEqual(wrappedBefore);

    // Named as the previous key, the generated file opens what it wrote and hands the index key over.
    const moved = await openVaultKeys(
      db,
      kekSources(dataDir, { [RECORDS_KEK_ENV]: 'n'.repeat(40), [`${PREVIOUS_RECORDS_KEK_ENV}_FILE`]: file }),
    );
    expect(moved.source).toBe('env');
    expect(moved.cipher.decrypt(stored, binding)).toBe('ada@example.com');
    expect(moved.blindIndex.of('crm.Customer', 'email', 'x@example.com')).toBe(
      generated.blindIndex.of('crm.Customer', 'email', 'x@example.com'),
    );
    const [row] = (await db.query<{ kek_id: string }>('SELECT kek_id FROM vault_keys')).rows;
    expect(row!.kek_id).toBe(moved.cipher.kekId);
  });

  it('generates no key for a database written under another one, nor for a rotation naming no new key', async () => {
    const db = await memoryDb();
    await openVaultKeys(db, kekSources(join(temp, 'env-set-up'), { [RECORDS_KEK_ENV]: 'e'.repeat(40) }));
    for (const env of [{}, { [PREVIOUS_RECORDS_KEK_ENV]: 'e'.repeat(40) }]) {
      const dataDir = join(temp, `forgotten-${Object.keys(env).length}`);
      const opened = openVaultKeys(db, kekSources(dataDir, env));
      await expect(opened).rejects.toMatchObject({ code: 'config_invalid' });
      expect(await refusal(opened)).toContain(RECORDS_KEK_ENV);
      expect(existsSync(join(dataDir, 'keys', GENERATED_KEK_FILE))).toBe(false);
    }
  });

  it('names a key file that cannot be read (config_invalid, not a bare ENOENT)', async () => {
    const missing = join(temp, 'no-such-secret');
    const opened = openVaultKeys(
      await memoryDb(),
      kekSources(temp, { [`${RECORDS_KEK_ENV}_FILE`]: missing }),
    );
    await expect(opened).rejects.toMatchObject({ code: 'config_invalid' });
    expect(await refusal(opened)).toContain(`${RECORDS_KEK_ENV}_FILE`);
  });
});
