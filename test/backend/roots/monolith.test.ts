import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../backend/config/load-config';
import { openDatabase } from '../../../backend/db/open-database';
import { ROOT_DIR } from '../../../backend/roots/context';
import { startMonolith } from '../../../backend/roots/monolith';
import { MemoryKeyStore } from '../../../backend/security/keys/memory-key-store';
import type { ServiceManifest } from '../../../src/protocol';
import { type Fetcher, request } from '../../helpers/http';
import { makeAppsFixture } from '../../helpers/test-app';

const network: Fetcher = { fetch: (req) => fetch(req) };

describe('startMonolith', () => {
  it('builds its context with the port it bound, so manifests carry the real address', async () => {
    const config = loadConfig({
      file: join(ROOT_DIR, 'platform.toml'),
      env: {},
      overrides: { 'server.host': '127.0.0.1', 'server.port': 0 },
    });
    const database = await openDatabase({ memory: true });
    const keys = await MemoryKeyStore.create({ graceMs: 60_000 });
    const monolith = await startMonolith(config, {
      log: () => {},
      database,
      keys,
      appsDir: makeAppsFixture({ crm: true }),
    });
    try {
      expect(Object.isFrozen(monolith.ctx)).toBe(true);
      expect(monolith.ctx.publicUrl).toBe(`http://127.0.0.1:${monolith.server.port}`);
      const res = await request(network, 'GET', `${monolith.url}/api/gateway/remotes`);
      expect(res.status).toBe(200);
      const crm = monolith.ctx.directory.get('crm') as ServiceManifest;
      expect(crm.apiUrl).toBe(`${monolith.url}/api`);
    } finally {
      await monolith.close();
      await database.close();
    }
  });
});
