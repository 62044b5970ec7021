import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userWithRoles } from '../../helpers/roles';
import { act, buildFiles, createReleaseTestApp, publish, type ReleaseTestApp } from './support';

let t: ReleaseTestApp;
let v1: string;
let v2: string;
beforeAll(async () => {
  t = await createReleaseTestApp();
  v1 = await publish(t, buildFiles('one'), { packageVersion: '1.0.0' });
  v2 = await publish(t, buildFiles('two'), { packageVersion: '1.1.0' });
});
afterAll(async () => {
  await t.close();
});

/** The crm remote URL the Desk is handed in each discovery answer it reads, for one caller. */
async function crmUrls(authorization?: string): Promise<string[]> {
  const headers = authorization ? { authorization } : undefined;
  const anonymous = authorization === undefined;
  const remotes = (await (
    await t.request('GET', '/api/gateway/remotes', { headers, anonymous })
  ).json()) as Record<string, { url: string }>;
  const services = (await (
    await t.request('GET', '/api/gateway/services', { headers, anonymous })
  ).json()) as Record<string, { url: string }>;
  const query = (await (
    await t.request('POST', '/api/gateway/discovery/query', {
      headers,
      anonymous,
      body: { resources: ['crm.Customer'] },
    })
  ).json()) as { services: Record<string, { url: string }> };
  return [remotes.crm!.url, services.crm!.url, query.services.crm!.url];
}

/** The crm entry a navigation's discovery query (`remotes: true`) names for one caller; undefined when none. */
async function navigationEntry(authorization?: string): Promise<string | undefined> {
  const answer = (await (
    await t.request('POST', '/api/gateway/discovery/query', {
      ...(authorization ? { headers: { authorization } } : { anonymous: true }),
      body: { resources: [], remotes: true },
    })
  ).json()) as { remotes?: Record<string, string> };
  return answer.remotes?.crm;
}

const urlOf = (version: string) => `http://desk.test/desk/assets/crm/${version}/remoteEntry.js`;

interface Listing {
  channel: { live: string | null; canary: { version: string; percent: number } | null };
  history: Array<{
    action: string;
    version: string | null;
    previous: string | null;
    actor: string;
    forced: boolean;
  }>;
  releases: Array<{ version: string; channels: string[] }>;
}

async function listing(): Promise<Listing> {
  return ((await (await t.request('GET', '/api/releases/crm')).json()) as { data: Listing }).data;
}

describe('channels', () => {
  it('promotes, records who did what, and rolls back to the previous live release', async () => {
    expect((await act(t, 'promote', { version: v1 })).status).toBe(200);
    expect((await act(t, 'promote', { version: v2 })).status).toBe(200);
    expect(await crmUrls()).toEqual([urlOf(v2), urlOf(v2), urlOf(v2)]);
    // No canary or pin: everyone gets the live release, so an anonymous answer names it.
    expect(await navigationEntry()).toBe(urlOf(v2));

    const rolled = await act(t, 'rollback', {});
    expect(rolled.status).toBe(200);
    expect(((await rolled.json()) as { data: { live: string } }).data.live).toBe(v1);
    expect(await crmUrls()).toEqual([urlOf(v1), urlOf(v1), urlOf(v1)]);

    const { history, channel, releases } = await listing();
    expect(channel.live).toBe(v1);
    expect(history.slice(0, 3)).toEqual([
      expect.objectContaining({ action: 'rollback', version: v1, previous: v2, actor: 'Administrator' }),
      expect.objectContaining({ action: 'promote', version: v2, previous: v1, forced: false }),
      expect.objectContaining({ action: 'promote', version: v1, previous: null }),
    ]);
    expect(releases.find((r) => r.version === v1)?.channels).toEqual(['live']);

    // v1 was promoted from nothing: there is nothing before it.
    const again = await act(t, 'rollback', {});
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('nothing_to_roll_back');
  });

  it('sends a stable half of 20 users to a 50% canary, each user always to the same release', async () => {
    expect((await act(t, 'canary', { version: v2, percent: 50 })).status).toBe(200);
    const users: string[] = [];
    for (let i = 0; i < 20; i++) users.push(await userWithRoles(t.ctx, `canary-user-${i}`, ['Sales User']));
    const first = await Promise.all(users.map((u) => crmUrls(u)));
    for (const urls of first) expect(new Set(urls).size).toBe(1); // the same answer on every endpoint
    const seen = first.map((urls) => urls[0]);
    expect(new Set(seen)).toEqual(new Set([urlOf(v1), urlOf(v2)]));
    const inCanary = users[seen.indexOf(urlOf(v2))]!;
    const unit = (
      (await (
        await t.request('GET', '/api/gateway/remotes', { headers: { authorization: inCanary } })
      ).json()) as Record<string, unknown>
    ).crm;
    expect(unit).toMatchObject({ url: urlOf(v2), channel: 'canary', liveUrl: urlOf(v1) });
    // Asked again (a reload), every user gets the same release.
    const second = await Promise.all(users.map((u) => crmUrls(u)));
    expect(second.map((urls) => urls[0])).toEqual(seen);
    // Not signed in: the live release.
    expect(await crmUrls()).toEqual([urlOf(v1), urlOf(v1), urlOf(v1)]);
    // A navigation's query names each user's own release; an anonymous one, which cannot, names none.
    for (const [i, user] of users.entries()) expect(await navigationEntry(user)).toBe(seen[i]);
    expect(await navigationEntry()).toBeUndefined();
  });

  it('lets a user pin and a role pin override the canary and the live release', async () => {
    const support = await userWithRoles(t.ctx, 'support-agent', ['Support Team']);
    const customer = await userWithRoles(t.ctx, 'customer-x', ['Sales User']);
    const customerSees = (await crmUrls(customer))[0]!;
    const other = customerSees === urlOf(v1) ? v2 : v1;

    expect((await act(t, 'pin', { version: other, user: 'customer-x' })).status).toBe(200);
    expect(await crmUrls(customer)).toEqual([urlOf(other), urlOf(other), urlOf(other)]);

    expect((await act(t, 'pin', { version: v2, role: 'Support Team' })).status).toBe(200);
    expect((await crmUrls(support))[0]).toBe(urlOf(v2));
    // The rewritten answer says why, and which release everyone else gets; a shared answer says neither.
    const crmUnit = async (authorization?: string) =>
      (
        (await (
          await t.request(
            'GET',
            '/api/gateway/remotes',
            authorization ? { headers: { authorization } } : { anonymous: true },
          )
        ).json()) as Record<string, Record<string, unknown>>
      ).crm!;
    const live = (await listing()).channel.live!;
    expect(await crmUnit(support)).toMatchObject({ url: urlOf(v2), channel: 'pinned', liveUrl: urlOf(live) });
    const shared = await crmUnit();
    expect(shared.url).toBe(urlOf(live));
    expect('channel' in shared || 'liveUrl' in shared).toBe(false);

    expect((await act(t, 'pin', { version: null, user: 'customer-x' })).status).toBe(200);
    expect((await crmUrls(customer))[0]).toBe(customerSees);
    const { history } = await listing();
    expect(history[0]).toMatchObject({ action: 'unpin', actor: 'Administrator' });
    expect(history[1]).toMatchObject({ action: 'pin', version: v2 });
  });

  it('refuses a release that is not kept or a pin naming nobody', async () => {
    const unknown = await act(t, 'promote', { version: '9.9.9+000000000000' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('unknown_release');
    const nobody = await act(t, 'pin', { version: v1 });
    expect(nobody.status).toBe(400);
    const unknownService = await act(t, 'promote', { version: v1 }, 'nosuch');
    expect(unknownService.status).toBe(404);
  });
});
