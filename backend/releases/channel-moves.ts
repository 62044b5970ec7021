import type { FieldError } from '../http/errors';
import { PlatformError } from '../http/errors';
import { type ContractFingerprint, contractDifferences } from './fingerprint';
import type { ChannelState, Release } from './model';
import { type Actor, unknownRelease } from './release-publishing';
import type { ReleaseStore } from './release-store';

/** What channel moves need of the {@link ReleaseService} they belong to. */
export interface ChannelMoveParts {
  store: ReleaseStore;
  /** The running contract of a service; 404 `unknown_service` for one this process does not know. */
  requireService(service: string): ContractFingerprint;
  /** The strictly increasing clock of the service. */
  tick(): number;
  /** Reads the channels again (another gateway may have moved them). */
  reload(): Promise<unknown>;
  channel(service: string): ChannelState;
  /** After a move: the view read again, retention, listeners told; the channel as it now stands. */
  changed(service: string): Promise<ChannelState>;
}

/**
 * The moves of a service's channel (docs/mfe-teams.md#promoting-and-rolling-back): promotion, rollback,
 * canary and pins, each through the contract gate where it makes a release reach users, each one database
 * transaction with its history entry.
 */
export class ChannelMoves {
  readonly #parts: ChannelMoveParts;

  constructor(parts: ChannelMoveParts) {
    this.#parts = parts;
  }

  async #published(service: string, version: string): Promise<Release> {
    const release = await this.#parts.store.get(service, version);
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
    const differences = contractDifferences(release.fingerprint, this.#parts.requireService(release.service));
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
    this.#parts.requireService(service);
    await this.#parts.reload();
    const release = await this.#published(service, version);
    const differences = this.#gate(release, options.force === true);
    const previous = this.#parts.channel(service).live;
    // A canary of the release now live has nothing left to test.
    const canary = this.#parts.channel(service).canary?.version === version ? null : undefined;
    await this.#parts.store.change(service, {
      live: version,
      ...(canary === null ? { canary: null } : {}),
      previousIsLive: true,
      entry: {
        at: this.#parts.tick(),
        actor: actor.user,
        action: 'promote',
        version,
        previous,
        forced: differences.length > 0,
        ...(differences.length > 0 ? { detail: differences } : {}),
      },
    });
    return this.#parts.changed(service);
  }

  /**
   * Makes the release that was live before the current one live again: the `previous` of the latest
   * promotion to the current release, so repeated rollbacks walk back through the promotions.
   */
  async rollback(service: string, options: { force?: boolean }, actor: Actor): Promise<ChannelState> {
    this.#parts.requireService(service);
    await this.#parts.reload();
    const current = this.#parts.channel(service).live;
    const history = await this.#parts.store.history(service, 10_000);
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
    await this.#parts.store.change(service, {
      live: target,
      previousIsLive: true,
      entry: {
        at: this.#parts.tick(),
        actor: actor.user,
        action: 'rollback',
        version: target,
        previous: current,
        forced: differences.length > 0,
        ...(differences.length > 0 ? { detail: differences } : {}),
      },
    });
    return this.#parts.changed(service);
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
    this.#parts.requireService(service);
    await this.#parts.reload();
    const differences =
      version === null || percent === 0
        ? []
        : this.#gate(await this.#published(service, version), options.force === true);
    const canary = version === null || percent === 0 ? null : { version, percent };
    await this.#parts.store.change(service, {
      canary,
      entry: {
        at: this.#parts.tick(),
        actor: actor.user,
        action: 'canary',
        version: canary?.version ?? null,
        previous: this.#parts.channel(service).live,
        forced: differences.length > 0,
        detail: { percent: canary?.percent ?? 0, ...(differences.length > 0 ? { differences } : {}) },
      },
    });
    return this.#parts.changed(service);
  }

  /** Pins a release for one user or role (`version` null removes the pin). */
  async pin(
    service: string,
    target: { kind: 'user' | 'role'; subject: string },
    version: string | null,
    actor: Actor,
  ): Promise<ChannelState> {
    this.#parts.requireService(service);
    if (version !== null) await this.#published(service, version);
    await this.#parts.store.change(service, {
      pin: { ...target, version },
      entry: {
        at: this.#parts.tick(),
        actor: actor.user,
        action: version === null ? 'unpin' : 'pin',
        version,
        previous: null,
        forced: false,
        detail: target,
      },
    });
    return this.#parts.changed(service);
  }
}
