import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { act, buildFiles, createReleaseTestApp, publish, type ReleaseTestApp } from './support';

let t: ReleaseTestApp;
beforeAll(async () => {
  t = await createReleaseTestApp({ 'releases.keep': 2 });
});
afterAll(async () => {
  await t.close();
});

async function kept(): Promise<string[]> {
  const { data } = (await (await t.request('GET', '/api/releases/crm')).json()) as {
    data: { releases: Array<{ version: string }> };
  };
  return data.releases.map((r) => r.version).sort();
}

describe('retention', () => {
  it('keeps the newest releases.keep releases plus the live and pinned ones, and deletes the rest with their files', async () => {
    const live = await publish(t, buildFiles('r0'));
    await act(t, 'promote', { version: live });
    const pinned = await publish(t, buildFiles('r1'));
    await act(t, 'pin', { version: pinned, user: 'someone' });
    const dropped = await publish(t, buildFiles('r2'));
    const newer = [await publish(t, buildFiles('r3')), await publish(t, buildFiles('r4'))];

    expect(await kept()).toEqual([live, pinned, ...newer].sort());
    expect(existsSync(join(t.dataDir, 'releases', 'crm', dropped))).toBe(false);
    for (const version of [live, pinned, ...newer]) {
      expect(existsSync(join(t.dataDir, 'releases', 'crm', version, 'remoteEntry.js'))).toBe(true);
    }
    const gone = await t.request('GET', `/desk/assets/crm/${dropped}/remoteEntry.js`, { anonymous: true });
    expect(gone.status).toBe(404);
  });
});
