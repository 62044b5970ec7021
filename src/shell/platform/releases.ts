/**
 * Which release of each service's remote this tab started with, and whether the gateway now hands out
 * another (docs/mfe-teams.md#releases). A tab keeps loading the files of the release it started with (a
 * release's URLs never change content), so a promotion or rollback never breaks it; the Desk only offers the
 * other version at the next navigation, and the user chooses when to load it.
 */
import { type DiscoveryUnit, REMOTES_PATH, type RemoteEntries, type RemotesMap } from '../../protocol';

/**
 * How the release handed out now stands to the tab's: `newer` or `older` by version, `other` when the
 * versions do not say (the same package version built again, or a remote that is not a release).
 */
export type ReleaseDirection = 'newer' | 'older' | 'other';

/** A service whose current remote differs from the one this tab started with. */
export interface ReleaseChange {
  service: string;
  /** The remote entry URL this tab started with. */
  from: string;
  /** The remote entry URL the gateway hands out now. */
  to: string;
  /** Whether `to` is a newer release than `from` (a promotion) or an older one (a rollback). */
  direction: ReleaseDirection;
}

/** The release segment of a release's entry URL (`/desk/assets/<service>/<version>/remoteEntry.js`), if any. */
export function releaseOfUrl(url: string): string | undefined {
  const match = /\/desk\/assets\/[^/]+\/(\d+\.\d+\.\d+[^/]*\+[0-9a-f]{12})\/remoteEntry\.js$/.exec(url);
  return match?.[1];
}

/** Which release of a service's remote a tab runs, which is live, and why this user gets theirs. */
export interface ReleaseInfo {
  /** The release this tab loaded; undefined for a remote that is not a release (its static build). */
  tab: string | undefined;
  /** The live release now; undefined when the remote is not a release. */
  live: string | undefined;
  /** `live`, `canary` or `pinned`; undefined when the remote is not a release. */
  channel: 'live' | 'canary' | 'pinned' | undefined;
}

/**
 * The release information of one service from what discovery answers: the entry URL this tab loaded, and
 * the service's unit of the current remotes map, whose `channel` and `liveUrl` are set only when this user
 * is handed another release than the live one (docs/mfe-teams.md#canaries-and-pins).
 */
export function releaseInfo(
  tabUrl: string | null | undefined,
  current: Pick<DiscoveryUnit, 'url' | 'channel' | 'liveUrl'> | undefined,
): ReleaseInfo {
  const tab = tabUrl ? releaseOfUrl(tabUrl) : undefined;
  const handed = current?.url ? releaseOfUrl(current.url) : undefined;
  const live = current?.liveUrl ? releaseOfUrl(current.liveUrl) : handed;
  const channel = current?.channel ?? (handed ? 'live' : undefined);
  return { tab, live, channel };
}

/** A semantic version's parts: `1.2.0-rc.1` is `[1, 2, 0]` and `['rc', '1']`. */
interface VersionParts {
  core: [number, number, number];
  prerelease: string[];
}

/** The version part of a release (`<version>+<build id>`), or undefined when it is not `x.y.z[-pre]`. */
function versionParts(release: string): VersionParts | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+|$)/.exec(release);
  if (!match) return undefined;
  return {
    core: [Number(match[1]), Number(match[2]), Number(match[3])],
    prerelease: match[4] ? match[4].split('.') : [],
  };
}

/** Orders two pre-release identifiers: numbers by value and before words, words by their characters. */
function compareIdentifier(a: string, b: string): number {
  const aNumber = /^\d+$/.test(a);
  const bNumber = /^\d+$/.test(b);
  if (aNumber && bNumber) return Math.sign(Number(a) - Number(b));
  if (aNumber !== bNumber) return aNumber ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Orders two releases by their version, build id aside: negative when `a` is older, positive when newer, 0
 * when the versions are equal, undefined when either is not a version. A pre-release comes before its
 * version (`1.1.0-rc.1` < `1.1.0`), as npm orders the `package.json` version a release is published with.
 */
export function compareReleases(a: string, b: string): number | undefined {
  const x = versionParts(a);
  const y = versionParts(b);
  if (!x || !y) return undefined;
  for (let i = 0; i < 3; i++) if (x.core[i] !== y.core[i]) return Math.sign(x.core[i]! - y.core[i]!);
  if (x.prerelease.length === 0 || y.prerelease.length === 0) {
    return Math.sign(y.prerelease.length - x.prerelease.length);
  }
  for (let i = 0; i < Math.min(x.prerelease.length, y.prerelease.length); i++) {
    const order = compareIdentifier(x.prerelease[i]!, y.prerelease[i]!);
    if (order !== 0) return order;
  }
  return Math.sign(x.prerelease.length - y.prerelease.length);
}

/**
 * Whether the remote at entry URL `to` is a newer or older release than the one at `from`. The remotes map
 * names no publish time, so two builds of the same version are `other`, as is a remote that is not a release.
 */
export function releaseDirection(from: string, to: string): ReleaseDirection {
  const a = releaseOfUrl(from);
  const b = releaseOfUrl(to);
  const order = a !== undefined && b !== undefined ? compareReleases(b, a) : undefined;
  return order === undefined || order === 0 ? 'other' : order > 0 ? 'newer' : 'older';
}

/** What a {@link ReleaseWatch} reads the current remotes from. */
export interface ReleaseWatchOptions {
  gatewayUrl: string;
  /** Fetches `GET /api/gateway/remotes` (with the session: its answer is this user's). */
  fetchRemotes: (url: string) => Promise<RemotesMap>;
  /**
   * The navigation's discovery revalidation (`DiscoveryClient.revalidate()`), whose answer names the
   * current remote entries: read first, so a navigation costs one request. When it names none (an older
   * gateway, a canary or pin the anonymous answer cannot speak for), the remotes map is fetched instead.
   */
  revalidate?: () => Promise<RemoteEntries | undefined>;
}

/**
 * Remembers the first remote entry URL seen for each service (the release the tab loads) and compares the
 * gateway's current remote entries with it. The Desk calls {@link ReleaseWatch.check} on navigation, never
 * on a timer; it reads the navigation's discovery answer, and fetches the remotes map only when that answer
 * names no entries.
 */
export class ReleaseWatch {
  readonly #startedWith = new Map<string, string>();
  readonly #options: ReleaseWatchOptions;

  constructor(options: ReleaseWatchOptions) {
    this.#options = options;
  }

  /** Records the URLs of services this tab has not seen yet (the catalog's, at boot or first load). */
  observe(services: Readonly<Record<string, { url: string | null }>>): void {
    for (const [service, entry] of Object.entries(services)) {
      if (entry.url && !this.#startedWith.has(service)) this.#startedWith.set(service, entry.url);
    }
  }

  /** The URL this tab started with for `service`. */
  startedWith(service: string): string | undefined {
    return this.#startedWith.get(service);
  }

  /**
   * Reads the current remote entries and answers the services whose entry moved to another release (a
   * promotion, a canary or pin now covering this user, a rollback). A failed request answers nothing: the
   * offer waits for the next navigation.
   */
  async check(): Promise<ReleaseChange[]> {
    const current = (await this.#options.revalidate?.()) ?? (await this.#fetchEntries());
    if (!current) return [];
    const changes: ReleaseChange[] = [];
    for (const [service, to] of Object.entries(current)) {
      const from = this.#startedWith.get(service);
      if (!from || !to || to === from) continue;
      if (releaseOfUrl(to) === undefined && releaseOfUrl(from) === undefined) continue;
      changes.push({ service, from, to, direction: releaseDirection(from, to) });
    }
    return changes.sort((a, b) => a.service.localeCompare(b.service));
  }

  /** The entries of the remotes map, or undefined when it could not be fetched. */
  async #fetchEntries(): Promise<RemoteEntries | undefined> {
    try {
      const map = await this.#options.fetchRemotes(`${this.#options.gatewayUrl}${REMOTES_PATH}`);
      return Object.fromEntries(Object.entries(map).map(([service, unit]) => [service, unit.url]));
    } catch {
      return undefined;
    }
  }
}
