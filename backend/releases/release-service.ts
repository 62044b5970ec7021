import type { ReleaseOverview } from '../../src/protocol';
import type { Database } from '../db/database';
import type { Principal } from '../http/env';
import { type FieldError, PlatformError } from '../http/errors';
import { type Assignment, chooseRelease } from './assignment';
import { type ContractFingerprint, contractDifferences } from './fingerprint';
import type { ChannelState, HistoryEntry, Release, ReleaseFile, ReleasePin, ReleaseSummary } from './model';
import { localReleaseFiles, type ReleaseFileStore } from './release-file-store';
import { buildIdOf, sha384Of } from './release-files';
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

/** What a publication asks for: the files the build holds, by path and hash, and what it was built from. */
export interface StageRequest {
  packageVersion: string;
  files: ReleaseFile[];
  mfManifest: unknown;
  fingerprint: ContractFingerprint;
}

/** The state of a publication: its version, and the files still to upload (none once published). */
export interface StageAnswer {
  version: string;
  state: Release['state'];
  missing: string[];
}

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

/** Who asks for a change. */
export interface Actor {
  user: string;
}

function unknownRelease(service: string, version: string): PlatformError {
  return new PlatformError('unknown_release', `${service} has no release ${version}.`, { status: 404 });
}

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
  #lastAt = 0;

  private constructor(options: ReleaseServiceOptions) {
    this.#options = options;
    this.#store = new ReleaseStore(options.db);
    this.#now = options.now ?? Date.now;
    this.#files = options.files ?? localReleaseFiles(options.root);
  }

  /** Creates the tables when needed and loads the channels and pins. */
  static async open(options: ReleaseServiceOptions): Promise<ReleaseService> {
    const service = new ReleaseService(options);
    await service.#store.init();
    await service.#reload();
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

  /**
   * Starts (or resumes) the publication of a build: records a staged release whose version is the package
   * version plus the build id of the declared files, and answers the files still to upload. The same build
   * published again is the same release (already published: nothing to upload).
   */
  async stage(service: string, request: StageRequest, actor: Actor): Promise<StageAnswer> {
    this.#requireService(service);
    const paths = new Set<string>();
    for (const f of request.files) {
      if (paths.has(f.path)) {
        throw new PlatformError('validation_failed', 'A file is listed twice.', {
          status: 400,
          fields: [{ field: f.path, code: 'duplicate', message: 'Listed twice.' }],
        });
      }
      paths.add(f.path);
    }
    if (!paths.has('remoteEntry.js')) {
      throw new PlatformError('validation_failed', 'A release needs the build folder’s remoteEntry.js.', {
        status: 400,
        fields: [{ field: 'files', code: 'missing', message: 'remoteEntry.js is not listed.' }],
      });
    }
    const buildId = buildIdOf(request.files);
    const version = `${request.packageVersion}+${buildId}`;
    const existing = await this.#store.get(service, version);
    if (!existing) {
      await this.#store.insertStaged({
        service,
        version,
        packageVersion: request.packageVersion,
        buildId,
        state: 'staged',
        files: [...request.files].sort((a, b) => a.path.localeCompare(b.path)),
        mfManifest: request.mfManifest ?? null,
        fingerprint: request.fingerprint,
        publisher: actor.user,
        createdAt: this.#tick(),
        publishedAt: null,
      });
    }
    return this.#progress(service, version, actor);
  }

  /**
   * Stores uploaded files of a staged release, each checked against the hash declared when it was staged
   * (422 `release_file_mismatch` naming the file otherwise); the last one publishes the release. A file too
   * large for one request comes in parts, each with its `offset`, and is checked once it is whole.
   */
  async upload(
    service: string,
    version: string,
    files: ReadonlyArray<{ path: string; bytes: Uint8Array; offset?: number }>,
    actor: Actor,
  ): Promise<StageAnswer> {
    const release = await this.#store.get(service, version);
    if (!release) throw unknownRelease(service, version);
    if (release.state === 'published') return { version, state: 'published', missing: [] };
    const declared = new Map(release.files.map((f) => [f.path, f]));
    const wrong: FieldError[] = [];
    const mismatch = (field: string) =>
      wrong.push({ field, code: 'hash_mismatch', message: 'The bytes do not match the declared hash.' });
    const whole: Array<{ path: string; bytes: Uint8Array }> = [];
    const parts: Array<{ file: ReleaseFile; bytes: Uint8Array; offset: number }> = [];
    for (const { path, bytes, offset } of files) {
      const file = declared.get(path);
      if (!file) wrong.push({ field: path, code: 'not_declared', message: 'Not a file of this release.' });
      else if (offset !== undefined) {
        if (offset + bytes.byteLength > file.size) {
          wrong.push({
            field: path,
            code: 'part_too_long',
            message: 'The part ends after the declared size.',
          });
        } else parts.push({ file, bytes, offset });
      } else if (sha384Of(bytes) !== file.sha384 || bytes.byteLength !== file.size) mismatch(path);
      else whole.push({ path, bytes });
    }
    const refuse = () =>
      new PlatformError('release_file_mismatch', 'Some uploaded files are not the declared ones.', {
        status: 422,
        fields: wrong,
      });
    if (wrong.length > 0) throw refuse();
    for (const { path, bytes } of whole) await this.#files.write(service, version, path, bytes);
    for (const { file, bytes, offset } of parts) {
      const outcome = await this.#files.appendPart(service, version, file, offset, bytes);
      if (outcome === 'out_of_order') {
        wrong.push({
          field: file.path,
          code: 'offset_mismatch',
          message: 'The part does not continue the file.',
        });
      } else if (outcome === 'mismatch') mismatch(file.path);
    }
    if (wrong.length > 0) throw refuse();
    return this.#progress(service, version, actor);
  }

  /** The files of a staged release not yet stored intact; publishes it when there are none. */
  async #progress(service: string, version: string, actor: Actor): Promise<StageAnswer> {
    const release = await this.#store.get(service, version);
    if (!release) throw unknownRelease(service, version);
    if (release.state === 'published') return { version, state: 'published', missing: [] };
    const missing: string[] = [];
    for (const file of release.files) {
      const bytes = await this.#files.read(service, version, file.path, file.sha384);
      if (bytes === undefined || bytes === 'altered') missing.push(file.path);
    }
    if (missing.length > 0) return { version, state: 'staged', missing };
    const at = this.#tick();
    await this.#store.markPublished(service, version, at);
    await this.#store.record(service, {
      at,
      actor: actor.user,
      action: 'publish',
      version,
      previous: null,
      forced: false,
    });
    await this.#retain(service);
    return { version, state: 'published', missing: [] };
  }

  async #published(service: string, version: string): Promise<Release> {
    const release = await this.#store.get(service, version);
    if (!release) throw unknownRelease(service, version);
    if (release.state !== 'published') {
      throw new PlatformError('release_incomplete', `${service} ${version} is still being uploaded.`, {
        status: 409,
      });
    }
    return release;
  }

  /** The contract gate: 409 `contract_incompatible` listing the differences, unless forced (then returned). */
  #gate(release: Release, force: boolean): FieldError[] {
    const differences = contractDifferences(release.fingerprint, this.#requireService(release.service));
    if (differences.length > 0 && !force) {
      throw new PlatformError(
        'contract_incompatible',
        `${release.service} ${release.version} was built against a contract the running service does not offer.`,
        { status: 409, fields: differences },
      );
    }
    return differences;
  }

  /** Makes a release live (docs/mfe-teams.md#promoting-and-rolling-back), through the contract gate. */
  async promote(
    service: string,
    version: string,
    options: { force?: boolean },
    actor: Actor,
  ): Promise<ChannelState> {
    this.#requireService(service);
    await this.#reload();
    const release = await this.#published(service, version);
    const differences = this.#gate(release, options.force === true);
    const previous = this.channel(service).live;
    // A canary of the release now live has nothing left to test.
    const canary = this.channel(service).canary?.version === version ? null : undefined;
    await this.#store.change(service, {
      live: version,
      ...(canary === null ? { canary: null } : {}),
      previousIsLive: true,
      entry: {
        at: this.#tick(),
        actor: actor.user,
        action: 'promote',
        version,
        previous,
        forced: differences.length > 0,
        ...(differences.length > 0 ? { detail: differences } : {}),
      },
    });
    return this.#changed(service);
  }

  /**
   * Makes the release that was live before the current one live again: the `previous` of the latest
   * promotion to the current release, so repeated rollbacks walk back through the promotions.
   */
  async rollback(service: string, options: { force?: boolean }, actor: Actor): Promise<ChannelState> {
    this.#requireService(service);
    await this.#reload();
    const current = this.channel(service).live;
    const history = await this.#store.history(service, 10_000);
    const target = history.find((e) => e.action === 'promote' && e.version === current)?.previous ?? null;
    if (!current || !target) {
      throw new PlatformError('nothing_to_roll_back', `${service} has no earlier live release.`, {
        status: 409,
      });
    }
    const release = await this.#published(service, target).catch(() => {
      throw new PlatformError('nothing_to_roll_back', `The earlier release ${target} is no longer kept.`, {
        status: 409,
      });
    });
    const differences = this.#gate(release, options.force === true);
    await this.#store.change(service, {
      live: target,
      previousIsLive: true,
      entry: {
        at: this.#tick(),
        actor: actor.user,
        action: 'rollback',
        version: target,
        previous: current,
        forced: differences.length > 0,
        ...(differences.length > 0 ? { detail: differences } : {}),
      },
    });
    return this.#changed(service);
  }

  /**
   * Sends `percent` of the service's users (a stable share, by user name) to `version`; 0 ends the canary.
   * The canary passes the contract gate like a promotion.
   */
  async canary(
    service: string,
    version: string | null,
    percent: number,
    options: { force?: boolean },
    actor: Actor,
  ): Promise<ChannelState> {
    this.#requireService(service);
    await this.#reload();
    const differences =
      version === null || percent === 0
        ? []
        : this.#gate(await this.#published(service, version), options.force === true);
    const canary = version === null || percent === 0 ? null : { version, percent };
    await this.#store.change(service, {
      canary,
      entry: {
        at: this.#tick(),
        actor: actor.user,
        action: 'canary',
        version: canary?.version ?? null,
        previous: this.channel(service).live,
        forced: differences.length > 0,
        detail: { percent: canary?.percent ?? 0, ...(differences.length > 0 ? { differences } : {}) },
      },
    });
    return this.#changed(service);
  }

  /** Pins a release for one user or role (`version` null removes the pin). */
  async pin(
    service: string,
    target: { kind: 'user' | 'role'; subject: string },
    version: string | null,
    actor: Actor,
  ): Promise<ChannelState> {
    this.#requireService(service);
    if (version !== null) await this.#published(service, version);
    await this.#store.change(service, {
      pin: { ...target, version },
      entry: {
        at: this.#tick(),
        actor: actor.user,
        action: version === null ? 'unpin' : 'pin',
        version,
        previous: null,
        forced: false,
        detail: target,
      },
    });
    return this.#changed(service);
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
