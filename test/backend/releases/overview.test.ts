/**
 * `GET /api/releases`, the index of the Desk's Releases page: each installed service with releases, its live
 * and canary release and how many releases and pins it has; for System Managers only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userWithRoles } from '../../helpers/roles';
import { act, buildFiles, createReleaseTestApp, publish, type ReleaseTestApp } from './support';

let t: ReleaseTestApp;
beforeAll(async () => {
  t = await createReleaseTestApp();
});
afterAll(async () => {
  await t.close();
});

interface Overview {
  service: string;
  live: string | null;
  canary: { version: string; percent: number } | null;
  pins: number;
  releases: number;
}

async function overview(authorization?: string): Promise<{ status: number; data?: Overview[] }> {
  const res = await t.request('GET', '/api/releases', authorization ? { headers: { authorization } } : {});
  if (res.status !== 200) return { status: res.status };
  return { status: 200, data: ((await res.json()) as { data: Overview[] }).data };
}

describe('the releases overview', () => {
  it('lists nothing before the first publication, then each service with its channel and counts', async () => {
    expect(await overview()).toEqual({ status: 200, data: [] });

    const v1 = await publish(t, buildFiles('one'), { packageVersion: '1.0.0' });
    expect((await overview()).data).toEqual([
      { service: 'crm', live: null, canary: null, pins: 0, releases: 1 },
    ]);

    const v2 = await publish(t, buildFiles('two'), { packageVersion: '1.1.0' });
    expect((await act(t, 'promote', { version: v1 })).status).toBe(200);
    expect((await act(t, 'canary', { version: v2, percent: 25 })).status).toBe(200);
    expect((await act(t, 'pin', { version: v2, role: 'Sales User' })).status).toBe(200);
    const res = await t.request('GET', '/api/releases');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(((await res.json()) as { data: Overview[] }).data).toEqual([
      { service: 'crm', live: v1, canary: { version: v2, percent: 25 }, pins: 1, releases: 2 },
    ]);
  });

  it('answers System Managers only', async () => {
    const clerk = await userWithRoles(t.ctx, 'overview-clerk', ['Sales User']);
    expect((await overview(clerk)).status).toBe(403);
    expect((await t.request('GET', '/api/releases', { anonymous: true })).status).toBe(401);
    const manager = await userWithRoles(t.ctx, 'overview-ops', ['System Manager']);
    expect((await overview(manager)).status).toBe(200);
  });
});
