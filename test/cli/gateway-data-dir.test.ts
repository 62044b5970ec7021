/**
 * The offline commands acting on one server's records, `m keys rewrap` and `m audit verify`, pointed at a
 * MACROSERVICE gateway's data directory (docs/operators.md#rotating-the-key-encryption-key,
 * docs/operators.md#the-audit-log): its own database holds no records and no audit log, as each service keeps
 * its own under `services/<app>`. Neither reports success there (nothing done, or an empty log "intact"):
 * each names the services' directories, and the rewrap writes no key into the gateway's database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuditLog } from '../../backend/audit/audit-log';
import { openDatabase } from '../../backend/db/open-database';
import { kekSources, openVaultKeys } from '../../backend/vault/vault-keys';
import { AUDIT_EXIT, auditCommand } from '../../src/cli/commands/audit';
import { KEYS_EXIT, keysCommand } from '../../src/cli/commands/keys';

const KEY = 'K'.repeat(40);
const dataDir = mkdtempSync(join(tmpdir(), 'desk-cli-gateway-dir-'));
const crmDir = join(dataDir, 'services', 'crm');

beforeAll(async () => {
  // The gateway's database, as a gateway leaves it: no records, no audit entries.
  const gateway = await openDatabase({ dataDir });
  await gateway.close();
  // crm's, with a customer's email under KEY and one reveal audited.
  const crm = await openDatabase({ dataDir: crmDir });
  try {
    const keys = await openVaultKeys(crm, kekSources(crmDir, { PLATFORM_RECORDS_KEY_ENCRYPTION_KEY: KEY }));
    const binding = { doctype: 'crm.Customer', record: 'CUST-00001', field: 'email' };
    await crm.query(
      `INSERT INTO records (doctype, name, data) VALUES ('crm.Customer', 'CUST-00001', $1::jsonb)`,
      [JSON.stringify({ customer_name: 'Ada', email: keys.cipher.encrypt('ada@example.com', binding) })],
    );
    const log = await AuditLog.open(crm);
    await log.append([
      {
        at: new Date().toISOString(),
        user: 'Administrator',
        via: 'session',
        doctype: 'crm.Customer',
        record: 'CUST-00001',
        fields: ['email'],
        route: 'get',
        client_address: '127.0.0.1',
      },
    ]);
    await log.close();
  } finally {
    await crm.close();
  }
}, 60_000);
afterAll(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
});

function errors() {
  vi.spyOn(console, 'log').mockImplementation(() => {});
  const error = vi.spyOn(console, 'error').mockImplementation(() => {});
  return () => error.mock.calls.map((call) => String(call[0])).join('\n');
}

describe("offline commands on a MACROSERVICE gateway's data directory", () => {
  it('m keys rewrap names the services to rewrap with --app instead of reporting done', async () => {
    const printed = errors();
    vi.stubEnv('PLATFORM_DATABASE_URL', '');
    vi.stubEnv('PLATFORM_RECORDS_KEY_ENCRYPTION_KEY', KEY);
    try {
      expect(await keysCommand.run(['rewrap', '--data-dir', dataDir])).toBe(KEYS_EXIT.failed);
    } finally {
      vi.unstubAllEnvs();
      vi.restoreAllMocks();
    }
    expect(printed()).toContain(
      `${dataDir} is a MACROSERVICE gateway's data directory, which holds no records`,
    );
    expect(printed()).toContain('(here: crm); rewrap each with --app <app>');
    const gateway = await openDatabase({ dataDir });
    try {
      expect((await gateway.query('SELECT * FROM vault_keys')).rows).toEqual([]);
    } finally {
      await gateway.close();
    }
  });

  it('m audit verify --data-dir names the services whose logs to check instead of an empty log intact', async () => {
    const printed = errors();
    try {
      expect(await auditCommand.run(['verify', '--data-dir', dataDir])).toBe(AUDIT_EXIT.broken);
      expect(printed()).toContain(`check each with --data-dir ${join(dataDir, 'services', '<app>')}`);
      expect(printed()).not.toContain('intact');
      expect(await auditCommand.run(['verify', '--data-dir', crmDir])).toBe(AUDIT_EXIT.ok);
    } finally {
      vi.restoreAllMocks();
    }
  });
});
