import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';
import {
  GENERATED_KEK_FILE,
  kekSources,
  openVaultKeys,
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
});
