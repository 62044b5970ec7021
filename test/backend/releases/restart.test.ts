import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../backend/db/database';
import { openDatabase } from '../../../backend/db/open-database';
import { createTestApp } from '../../helpers/test-app';
import { act, buildFiles, publish } from './support';

const dataDir = mkdtempSync(join(tmpdir(), 'desk-releases-restart-'));
let database: Database | undefined;
afterAll(async () => {
  await database?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('releases across a restart', () => {
  it('keeps every release, the live pointer, the canary, the pins and the history', async () => {
    database = await openDatabase({ memory: true });
    const config = { 'server.data_dir': dataDir };
    const first = await createTestApp({ config, database });
    const v1 = await publish(first, buildFiles('one'));
    const v2 = await publish(first, buildFiles('two'));
    await act(first, 'promote', { version: v1 });
    await act(first, 'canary', { version: v2, percent: 30 });
    await act(first, 'pin', { version: v2, role: 'Support Team' });
    const before = await (await first.request('GET', '/api/releases/crm')).json();
    await first.close();

    const second = await createTestApp({ config, database });
    try {
      expect(await (await second.request('GET', '/api/releases/crm')).json()).toEqual(before);
      const remotes = (await (
        await second.request('GET', '/api/gateway/remotes', { anonymous: true })
      ).json()) as Record<string, { url: string }>;
      expect(remotes.crm?.url).toBe(`http://desk.test/desk/assets/crm/${v1}/remoteEntry.js`);
      const entry = await second.request('GET', `/desk/assets/crm/${v1}/remoteEntry.js`, { anonymous: true });
      expect(await entry.text()).toBe(buildFiles('one')['remoteEntry.js']);
    } finally {
      await second.close();
    }
  });
});
