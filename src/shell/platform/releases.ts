/**
 * Which release of each service's remote this tab started with, and whether the gateway now hands out
 * another (docs/mfe-teams.md#releases). A tab keeps loading the files of the release it started with (a
 * release's URLs never change content), so a promotion or rollback never breaks it; the Desk only offers the
 * new version at the next navigation, and the user chooses when to load it.
 */
import { REMOTES_PATH, type RemotesMap } from '../../protocol';

/** A service whose current remote differs from the one this tab started with. */
export interface ReleaseChange {
  service: string;
  /** The remote entry URL this tab started with. */
  from: string;
  /** The remote entry URL the gateway hands out now. */
  to: string;
}

/** The release segment of a release's entry URL (`/desk/assets/<service>/<version>/remoteEntry.js`), if any. */
export function releaseOfUrl(url: string): string | undefined {
  const match = /\/desk\/assets\/[^/]+\/(\d+\.\d+\.\d+[^/]*\+[0-9a-f]{12})\/remoteEntry\.js$/.exec(url);
  return match?.[1];
}

/**
 * Remembers the first remote entry URL seen for each service (the release the tab loads) and compares the
 * gateway's current remotes map with it. One request per {@link ReleaseWatch.check}: the Desk calls it on
 * navigation, never on a timer.
 */
export class ReleaseWatch {
  readonly #startedWith = new Map<string, string>();
  readonly #fetchRemotes: (url: string) => Promise<RemotesMap>;
  readonly #gatewayUrl: string;

  constructor(options: { gatewayUrl: string; fetchRemotes: (url: string) => Promise<RemotesMap> }) {
    this.#gatewayUrl = options.gatewayUrl;
    this.#fetchRemotes = options.fetchRemotes;
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
   * Asks the gateway for the current remotes and answers the services whose entry moved to another release
   * (a promotion, a canary or pin now covering this user, a rollback). A failed request answers nothing:
   * the offer waits for the next navigation.
   */
  async check(): Promise<ReleaseChange[]> {
    let current: RemotesMap;
    try {
      current = await this.#fetchRemotes(`${this.#gatewayUrl}${REMOTES_PATH}`);
    } catch {
      return [];
    }
    const changes: ReleaseChange[] = [];
    for (const [service, unit] of Object.entries(current)) {
      const from = this.#startedWith.get(service);
      if (!from || !unit.url || unit.url === from) continue;
      if (releaseOfUrl(unit.url) === undefined && releaseOfUrl(from) === undefined) continue;
      changes.push({ service, from, to: unit.url });
    }
    return changes.sort((a, b) => a.service.localeCompare(b.service));
  }
}
