import type { ReleaseOverview } from '../../src/protocol';
import type { Database } from '../db/database';
import type { Principal } from '../http/env';
import { PlatformError } from '../http/errors';
import { type Assignment, chooseRelease } from './assignment';
import { ChannelMoves } from './channel-moves';
import type { ContractFingerprint } from './fingerprint';
import type { ChannelState, HistoryEntry, Release, ReleasePin, ReleaseSummary } from './model';
import { localReleaseFiles, type ReleaseFileStore } from './release-file-store';
import { type Actor, ReleasePublishing, type StageAnswer, type StageRequest } from './release-publishing';
import { ReleaseStore } from './release-store';

/** Options of {@link ReleaseService.open}. */
export interface ReleaseServiceOptions {
  db: Database;
  /** Folder of the release files: `<data_dir>/releases`. */
  root: string;
  /**
   * Where the files are kept; default under `root`. A MACROSERVICE gateway keeps them with the service
   * owning the remote (backend/releases/remote-release-files.ts).
   */
  files?: ReleaseFileStore;
  /** Published releases kept per service besides the live, canary and pinned ones (`releases.keep`). */
  keep: number;
  /** How long a publication may stay unfinished (`releases.staged_max_age_hours`); default 24 hours. */
  stagedMaxAgeMs?: number;
  /** The contract fingerprint of a service as it runs now; undefined for a service this process lacks. */
  running(service: string): ContractFingerprint | undefined;
  log: (line: string) => void;
  /** Injectable clock (ms). */
  now?: () => number;
  /**
   * Told after this process changed a service's channel or pins, once the change is committed: a
   * MACROSERVICE gateway tells the other gateways (backend/releases/release-sync.ts).
   */
  announce?: (service: string) => void;
}

export type { Actor, StageAnswer, StageRequest };

/** Everything about one service's releases, as `m release list` and the API show it. */
export interface ServiceReleases {
  service: string;
  channel: ChannelState;
  pins: ReleasePin[];
  releases: ReleaseSummary[];
  history: HistoryEntry[];
}

/** One line of {@link ReleaseService.overview}: a service's channel and how many releases it keeps. */
export type ServiceOverview = ReleaseOverview;

function unknownService(service: string): PlatformError {
  return new PlatformError('unknown_service', `No installed app is named ${service}.`, { status: 404 });
}

/** `metaData.buildInfo.buildVersion` of a Module Federation manifest, when it is a string. */
function buildVersionOf(manifest: unknown): string | null {
  const version = (manifest as { metaData?: { buildInfo?: { buildVersion?: unknown } } } | null)?.metaData
    ?.buildInfo?.buildVersion;
  return typeof version === 'string' ? version : null;
}

const emptyChannel = (service: string): ChannelState => ({ service, live: null, canary: null, rev: 0 });

/** The versions each service's channel and pins point at. */
function usedVersions(
  channels: ReadonlyMap<string, ChannelState>,
  pins: ReadonlyMap<string, ReleasePin[]>,
): Map<string, Set<string>> {
  const used = new Map<string, Set<string>>();
  const add = (service: string, version: string | null | undefined) => {
    if (!version) return;
    const set = used.get(service) ?? new Set<string>();
    set.add(version);
    used.set(service, set);
  };
  for (const c of channels.values()) {
    add(c.service, c.live);
    add(c.service, c.canary?.version);
  }
  for (const [service, list] of pins) for (const p of list) add(service, p.version);
  return used;
}

/**
 * Releases of UI remotes (docs/mfe-teams.md#releases): publication with the hashes fixed at that moment,
 * channels (live, canary, pins) moved atomically in the database with their history, the contract gate,
 * retention, and which release each user is handed. Channels and pins are also kept in memory, so discovery
 * chooses a release without a query: in MONOLITH this process is their only writer; MACROSERVICE gateways
 * share the database and call {@link ReleaseService.refresh} when another one changed it.
 */
export class ReleaseService {
  readonly #store: ReleaseStore;
  readonly #options: ReleaseServiceOptions;
  readonly #now: () => number;
  readonly #files: ReleaseFileStore;
  #channels = new Map<string, ChannelState>();
  #pins = new Map<string, ReleasePin[]>();
  /** Published releases in use (live, canary, pinned), for the manifest's integrity without a query. */
  readonly #inUse = new Map<string, Release>();
  readonly #listeners = new Set<() => void>();
  readonly #publishing: ReleasePublishing;
  readonly #moves: ChannelMoves;
  #lastAt = 0;

  private constructor(options: ReleaseServiceOptions) {
    this.#options = options;
    this.#store = new ReleaseStore(options.db);
    this.#now = options.now ?? Date.now;
    this.#files = options.files ?? localReleaseFiles(options.root);
    const requireService = (service: string) => this.#requireService(service);
    const tick = () => this.#tick();
    this.#publishing = new ReleasePublishing({
      store: this.#store,
      files: this.#files,
      requireService,
      tick,
      retain: (service) => this.#retain(service),
      stagedMaxAgeMs: options.stagedMaxAgeMs ?? 24 * 3_600_000,
      now: () => this.#now(),
      log: options.log,
    });
    this.#moves = new ChannelMoves({
      store: this.#store,
      requireService,
      tick,
      reload: () => this.#reload(),
      channel: (service) => this.channel(service),
      changed: (service) => this.#changed(service),
    });
  }

  /** Creates the tables when needed and loads the channels and pins. */
  static async open(options: ReleaseServiceOptions): Promise<ReleaseService> {
    const service = new ReleaseService(options);
    await service.#store.init();
    await service.#reload();
    await service.#publishing.sweepStaged();
    return service;
  }

  /** The clock, made strictly increasing so that publications and history entries keep their order. */
  #tick(): number {
    this.#lastAt = Math.max(this.#now(), this.#lastAt + 1);
    return this.#lastAt;
  }

  /**
   * Reads the channels and pins again, and the releases they point at. The new view replaces the old one in
   * one step, so a discovery answer never mixes the two. True when anything changed.
   */
  async #reload(): Promise<boolean> {
    const channels = new Map((await this.#store.channels()).map((c) => [c.service, c]));
    const pins = await this.#store.pins();
    const before = this.#signature();
    const used = usedVersions(channels, pins);
    const inUse = new Map<string, Release>();
    for (const [service, versions] of used) {
      for (const version of versions) {
        const key = `${service}\n${version}`;
        // A published release never changes: one already held needs no query.
        const release = this.#inUse.get(key) ?? (await this.#store.get(service, version));
        if (release) inUse.set(key, release);
      }
    }
    this.#channels = channels;
    this.#pins = pins;
    this.#inUse.clear();
    for (const [key, release] of inUse) this.#inUse.set(key, release);
    return this.#signature() !== before;
  }

  /** What the in-memory view holds, as one string: two views with the same signature hand out the same. */
  #signature(): string {
    return JSON.stringify([
      [...this.#channels.values()].sort((a, b) => a.service.localeCompare(b.service)),
      [...this.#pins].sort(([a], [b]) => a.localeCompare(b)),
    ]);
  }

  /**
   * Reads the channels and pins from the database again and tells the listeners when they changed: how a
   * MACROSERVICE gateway learns of a change made through another gateway (on its notification, and at every
   * heartbeat in case the notification was lost). True when something changed.
   */
  async refresh(): Promise<boolean> {
    const changed = await this.#reload();
    if (changed) for (const listener of this.#listeners) listener();
    return changed;
  }

  /** The versions each service's channel and pins point at. */
  #usedVersions(): Map<string, Set<string>> {
    return usedVersions(this.#channels, this.#pins);
  }

  /** Registers a listener called after every channel or pin change; returns its removal. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A service's channel (an empty one before its first promotion). */
  channel(service: string): ChannelState {
    return this.#channels.get(service) ?? emptyChannel(service);
  }

  /**
   * True when some user may be handed another release than the live one (a canary or a pin exists), so
   * discovery answers need looking at per user; false keeps them shared.
   */
  sendsSomeUsersElsewhere(): boolean {
    for (const channel of this.#channels.values()) if (channel.canary) return true;
    for (const pins of this.#pins.values()) if (pins.length > 0) return true;
    return false;
  }

  /** The release a principal is handed for a service, and why; undefined while the service has none live. */
  chosen(
    service: string,
    principal: Pick<Principal, 'user' | 'roles'> | undefined,
  ): { release: Release; why: Assignment } | undefined {
    const choice = chooseRelease(this.#channels.get(service), this.#pins.get(service) ?? [], principal);
    const release = choice && this.#inUse.get(`${service}\n${choice.version}`);
    return release && choice ? { release, why: choice.why } : undefined;
  }

  /** A release, from memory when it is in use, else from the database. */
  async get(service: string, version: string): Promise<Release | undefined> {
    return this.#inUse.get(`${service}\n${version}`) ?? (await this.#store.get(service, version));
  }

  /**
   * One published file of a release, checked against its published hash on this very read
   * (docs/mfe-teams.md#releases): undefined when the release has no such file; 500 `release_altered` when
   * the bytes on disk are not the published ones (or are gone), on every read for as long as they differ.
   */
  async readFile(service: string, version: string, path: string): Promise<Uint8Array | undefined> {
    const release = await this.get(service, version);
    if (release?.state !== 'published') return undefined;
    const file = release.files.find((f) => f.path === path);
    if (!file) return undefined;
    const bytes = await this.#files.read(service, version, path, file.sha384);
    // A published file that is gone differs from its published hash as much as a changed one does.
    if (bytes === 'altered' || bytes === undefined) {
      this.#options.log(`release ${service} ${version}: ${path} differs from its published hash; refused`);
      throw new PlatformError(
        'release_altered',
        'This file of the release was changed after publication and is not served.',
        { status: 500 },
      );
    }
    return bytes;
  }

  #requireService(service: string): ContractFingerprint {
    const running = this.#options.running(service);
    if (!running) throw unknownService(service);
    return running;
  }

  /** Starts (or resumes) the publication of a build ({@link ReleasePublishing.stage}). */
  stage(service: string, request: StageRequest, actor: Actor): Promise<StageAnswer> {
    return this.#publishing.stage(service, request, actor);
  }

  /** Stores uploaded files of a staged release ({@link ReleasePublishing.upload}). */
  upload(
    service: string,
    version: string,
    files: ReadonlyArray<{ path: string; bytes: Uint8Array; offset?: number }>,
    actor: Actor,
  ): Promise<StageAnswer> {
    return this.#publishing.upload(service, version, files, actor);
  }

  /** Makes a release live ({@link ChannelMoves.promote}). */
  promote(
    service: string,
    version: string,
    options: { force?: boolean },
    actor: Actor,
  ): Promise<ChannelState> {
    return this.#moves.promote(service, version, options, actor);
  }

  /** Makes the release live before the current one live again ({@link ChannelMoves.rollback}). */
  rollback(service: string, options: { force?: boolean }, actor: Actor): Promise<ChannelState> {
    return this.#moves.rollback(service, options, actor);
  }

  /** Sends a share of the users to a release ({@link ChannelMoves.canary}). */
  canary(
    service: string,
    version: string | null,
    percent: number,
    options: { force?: boolean },
    actor: Actor,
  ): Promise<ChannelState> {
    return this.#moves.canary(service, version, percent, options, actor);
  }

  /** Pins a release for one user or role ({@link ChannelMoves.pin}). */
  pin(
    service: string,
    target: { kind: 'user' | 'role'; subject: string },
    version: string | null,
    actor: Actor,
  ): Promise<ChannelState> {
    return this.#moves.pin(service, target, version, actor);
  }

  async #changed(service: string): Promise<ChannelState> {
    await this.#reload();
    await this.#retain(service);
    for (const listener of this.#listeners) listener();
    this.#options.announce?.(service);
    return this.channel(service);
  }

  /**
   * Each installed service that has releases or a channel, with where its channel stands and how many
   * releases are kept: the index of the Desk's Releases page. A service this process does not run is left
   * out (its records stay until it is installed again).
   */
  async overview(): Promise<ServiceOverview[]> {
    const names = new Set([...(await this.#store.servicesWithReleases()), ...this.#channels.keys()]);
    const out: ServiceOverview[] = [];
    for (const service of [...names].sort()) {
      if (!this.#options.running(service)) continue;
      const releases = (await this.#store.list(service)).filter((r) => r.state === 'published').length;
      const { live, canary } = this.channel(service);
      out.push({ service, live, canary, pins: this.#pins.get(service)?.length ?? 0, releases });
    }
    return out;
  }

  /** Everything about a service's releases, newest first. */
  async list(service: string): Promise<ServiceReleases> {
    this.#requireService(service);
    const channel = this.channel(service);
    const pins = this.#pins.get(service) ?? [];
    const releases = (await this.#store.list(service)).map(
      ({ files, fingerprint: _f, mfManifest, ...rest }): ReleaseSummary => {
        const channels: string[] = [];
        if (channel.live === rest.version) channels.push('live');
        if (channel.canary?.version === rest.version) channels.push(`canary ${channel.canary.percent}%`);
        if (pins.some((p) => p.version === rest.version)) channels.push('pinned');
        return { ...rest, fileCount: files.length, buildVersion: buildVersionOf(mfManifest), channels };
      },
    );
    return { service, channel, pins, releases, history: await this.#store.history(service) };
  }

  /**
   * Retention (docs/operators.md#releases): the newest `keep` published releases of the service, plus any
   * live, canary or pinned one, stay; the others lose their record and their files.
   */
  async #retain(service: string): Promise<void> {
    const used = this.#usedVersions().get(service) ?? new Set<string>();
    const published = (await this.#store.list(service))
      .filter((r) => r.state === 'published')
      .sort((a, b) => (b.publishedAt ?? 0) - (a.publishedAt ?? 0));
    for (const release of published.slice(this.#options.keep)) {
      if (used.has(release.version)) continue;
      await this.#store.delete(service, release.version);
      await this.#files.remove(service, release.version);
      this.#options.log(`release ${service} ${release.version} removed (retention)`);
    }
  }
}
