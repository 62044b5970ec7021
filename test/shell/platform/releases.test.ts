/**
 * ReleaseWatch and release ordering: which releases of a remote the gateway now hands out differ from the
 * tab's, and whether each is newer (a promotion) or older (a rollback) by its version, build id aside; and
 * the release information the developer details show.
 */
import { describe, expect, it } from 'vitest';
import type { RemotesMap } from '../../../src/protocol';
import {
  compareReleases,
  ReleaseWatch,
  releaseDirection,
  releaseInfo,
} from '../../../src/shell/platform/releases';

const GATEWAY = 'http://desk.test';
const entry = (service: string, release: string) =>
  `${GATEWAY}/desk/assets/${service}/${release}/remoteEntry.js`;
const unit = (url: string) => ({ url, apiUrl: `${GATEWAY}/api`, metaUrl: `${GATEWAY}/api/meta/x` });

describe('compareReleases', () => {
  it('orders by major, minor and patch as numbers, whatever the build id', () => {
    expect(compareReleases('1.1.0+000000000000', '1.0.0+ffffffffffff')).toBe(1);
    expect(compareReleases('1.0.0+ffffffffffff', '1.1.0+000000000000')).toBe(-1);
    expect(compareReleases('1.10.0+aaaaaaaaaaaa', '1.9.3+aaaaaaaaaaaa')).toBe(1);
    expect(compareReleases('2.0.0+aaaaaaaaaaaa', '1.99.99+aaaaaaaaaaaa')).toBe(1);
    expect(compareReleases('1.0.0+aaaaaaaaaaaa', '1.0.0+bbbbbbbbbbbb')).toBe(0);
  });

  it('puts a pre-release before its version and orders pre-release identifiers', () => {
    expect(compareReleases('1.1.0-rc.1+aaaaaaaaaaaa', '1.1.0+aaaaaaaaaaaa')).toBe(-1);
    expect(compareReleases('1.1.0-rc.2+aaaaaaaaaaaa', '1.1.0-rc.10+aaaaaaaaaaaa')).toBe(-1);
    expect(compareReleases('1.1.0-beta+aaaaaaaaaaaa', '1.1.0-alpha.1+aaaaaaaaaaaa')).toBe(1);
    expect(compareReleases('1.1.0-1+aaaaaaaaaaaa', '1.1.0-alpha+aaaaaaaaaaaa')).toBe(-1);
    expect(compareReleases('1.1.0-rc+aaaaaaaaaaaa', '1.1.0-rc.1+aaaaaaaaaaaa')).toBe(-1);
    expect(compareReleases('1.1.0-rc.1+aaaaaaaaaaaa', '1.0.9+aaaaaaaaaaaa')).toBe(1);
  });

  it('does not order what is not a version', () => {
    expect(compareReleases('next+aaaaaaaaaaaa', '1.0.0+aaaaaaaaaaaa')).toBeUndefined();
  });
});

describe('releaseDirection', () => {
  it('names a higher version newer, a lower one older, and an unordered one other', () => {
    const v1 = entry('crm', '1.0.0+3f9a0c1d2e4b');
    const v2 = entry('crm', '1.1.0+0a1b2c3d4e5f');
    expect(releaseDirection(v1, v2)).toBe('newer');
    expect(releaseDirection(v2, v1)).toBe('older');
    expect(releaseDirection(v1, entry('crm', '1.0.0+999999999999'))).toBe('other');
    expect(releaseDirection(`${GATEWAY}/desk/assets/crm/remoteEntry.js`, v1)).toBe('other');
    expect(releaseDirection(v1, `${GATEWAY}/desk/assets/crm/remoteEntry.js`)).toBe('other');
  });
});

describe('ReleaseWatch', () => {
  /** A watch whose gateway answers `current`, and the URLs it asked. */
  function watchAnswering(current: () => RemotesMap) {
    const asked: string[] = [];
    const watch = new ReleaseWatch({
      gatewayUrl: GATEWAY,
      fetchRemotes: async (url) => {
        asked.push(url);
        return current();
      },
    });
    return { watch, asked };
  }

  it('reports a promotion as newer and the rollback after it as older, against what the tab started with', async () => {
    const v1 = entry('crm', '1.0.0+3f9a0c1d2e4b');
    const v2 = entry('crm', '1.1.0+0a1b2c3d4e5f');
    let live = v1;
    const { watch, asked } = watchAnswering(() => ({ crm: unit(live) }));
    watch.observe({ crm: { url: v1 } });
    expect(await watch.check()).toEqual([]);

    live = v2;
    expect(await watch.check()).toEqual([{ service: 'crm', from: v1, to: v2, direction: 'newer' }]);
    expect(asked).toEqual([`${GATEWAY}/api/gateway/remotes`, `${GATEWAY}/api/gateway/remotes`]);

    // A tab that loaded release 2 (after accepting) sees the rollback to release 1 as older.
    const reloaded = watchAnswering(() => ({ crm: unit(v1) }));
    reloaded.watch.observe({ crm: { url: v2 } });
    expect(await reloaded.watch.check()).toEqual([{ service: 'crm', from: v2, to: v1, direction: 'older' }]);
  });

  it('reports a rebuild of the same version as other, and answers nothing when the gateway cannot be asked', async () => {
    const first = entry('crm', '1.0.0+3f9a0c1d2e4b');
    const rebuilt = entry('crm', '1.0.0+0a1b2c3d4e5f');
    const { watch } = watchAnswering(() => ({ crm: unit(rebuilt) }));
    watch.observe({ crm: { url: first } });
    expect(await watch.check()).toEqual([{ service: 'crm', from: first, to: rebuilt, direction: 'other' }]);

    const down = new ReleaseWatch({
      gatewayUrl: GATEWAY,
      fetchRemotes: () => Promise.reject(new Error('offline')),
    });
    down.observe({ crm: { url: first } });
    expect(await down.check()).toEqual([]);
  });

  it("reads the navigation's discovery answer, and fetches the remotes map only when it names no entries", async () => {
    const v1 = entry('crm', '1.0.0+3f9a0c1d2e4b');
    const v2 = entry('crm', '1.1.0+0a1b2c3d4e5f');
    const fetched: string[] = [];
    let answered: Record<string, string> | undefined = {
      crm: v2,
      stock: entry('stock', '2.0.0+aaaaaaaaaaaa'),
    };
    const watch = new ReleaseWatch({
      gatewayUrl: GATEWAY,
      fetchRemotes: async (url) => {
        fetched.push(url);
        return { crm: unit(v1) };
      },
      revalidate: async () => answered,
    });
    watch.observe({ crm: { url: v1 } });

    expect(await watch.check()).toEqual([{ service: 'crm', from: v1, to: v2, direction: 'newer' }]);
    expect(fetched).toEqual([]);

    // An older gateway's answer (or an anonymous one while a canary exists): the session's remotes map.
    answered = undefined;
    expect(await watch.check()).toEqual([]);
    expect(fetched).toEqual([`${GATEWAY}/api/gateway/remotes`]);
  });
});

describe('releaseInfo', () => {
  const V1 = '1.0.0+aaaaaaaaaaaa';
  const V2 = '1.1.0+bbbbbbbbbbbb';

  it('reads a shared answer as the live release, handed to this user through the live channel', () => {
    expect(releaseInfo(entry('crm', V1), { url: entry('crm', V2) })).toEqual({
      tab: V1,
      live: V2,
      channel: 'live',
    });
  });

  it('reads a rewritten answer as the canary or pin it says, with the live release it names', () => {
    const current = { url: entry('crm', V1), channel: 'canary' as const, liveUrl: entry('crm', V2) };
    expect(releaseInfo(entry('crm', V1), current)).toEqual({ tab: V1, live: V2, channel: 'canary' });
    expect(releaseInfo(entry('crm', V2), { ...current, channel: 'pinned' })).toEqual({
      tab: V2,
      live: V2,
      channel: 'pinned',
    });
  });

  it('says nothing of a remote that is not a release', () => {
    const asset = `${GATEWAY}/desk/assets/crm/remoteEntry.js`;
    expect(releaseInfo(asset, { url: asset })).toEqual({
      tab: undefined,
      live: undefined,
      channel: undefined,
    });
    expect(releaseInfo(undefined, undefined)).toEqual({
      tab: undefined,
      live: undefined,
      channel: undefined,
    });
  });
});
