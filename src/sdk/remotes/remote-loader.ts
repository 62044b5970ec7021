/**
 * Loading each service's UI remote with the Module Federation runtime (`registerRemotes`, `loadRemote`,
 * `preloadRemote`). A remote is registered from its manifest (name = service, entry = manifest.url), loaded
 * with a timeout and one retry, and a dead remote becomes a coded error for that remote only
 * (`remote_load_failed`, `remote_timeout`), so the Desk can show the rest.
 * In the shell's webpack host the MF plugin has created the runtime instance: the loader uses it
 * (`getInstance()`); elsewhere it creates one. Tests inject a runtime.
 */
import { createInstance, getInstance, satisfy } from '@module-federation/enhanced/runtime';
import { VIEWS_MODULE } from '../../contract/remote';
import type { ServiceManifest } from '../../protocol';
import { isSdkError, SdkError } from '../errors';
import { Hooks } from '../hooks';
import { watchCspRefusals } from './csp-refusals';
import { checkViewsShape, diagnosisOf, type RemoteDiagnosis, RemoteLoadError } from './diagnosis';
import { hintEntry } from './entry-hint';
import type { FederationRuntime } from './federation-runtime';
import { entryKey, integrityPlugin } from './integrity';
import { loadFailureOf } from './integrity-failure';
import type { RemoteLoaderHookEvents, RemoteLoaderOptions } from './remote-loader-options';
import { checkRemoteManifest, type RemoteManifestView } from './remote-manifest';
import { RemoteManifestCache } from './remote-manifest-cache';
import {
  describeMismatch,
  deskSharedVersions,
  type SharedVersionMismatch,
  sharedVersionMismatches,
} from './shared-versions';
import { sharedVersionsPlugin } from './shared-versions-plugin';
import { TIMEOUT, withTimeout } from './with-timeout';

/**
 * Registers and loads MFE remotes.
 *
 * @example
 * const loader = new RemoteLoader();
 * loader.register('crm', discovery.getManifest('crm')!);
 * const { default: CustomerList } = await loader.load<{ default: ComponentType }>('crm', './CustomerList');
 */
export class RemoteLoader {
  /** Lifecycle hooks: `beforeLoadRemote`, `afterLoadRemote`, `loadRemoteError`. */
  readonly hooks = new Hooks<RemoteLoaderHookEvents>();
  readonly #options: RemoteLoaderOptions;
  #runtime: FederationRuntime | undefined;
  readonly #entries = new Map<string, string>();
  /** Entry URL (without query) -> its published SRI hash. */
  readonly #integrity = new Map<string, string>();
  #pluginRegistered = false;
  readonly #mismatches = new Map<string, SharedVersionMismatch[]>();
  /** Each entry's manifest, read once. */
  readonly #manifests = new RemoteManifestCache(() => this.#options.fetch ?? fetch);
  #onHostPage = false;
  #sharedPluginRegistered = false;
  /** The page's recent CSP refusals, read when a load fails. */
  readonly #refusals = watchCspRefusals();
  readonly #gates: Array<Promise<unknown>> = [];

  constructor(options: RemoteLoaderOptions = {}) {
    this.#options = options;
    this.#runtime = options.runtime;
  }

  /** The runtime instance in use. */
  get runtime(): FederationRuntime {
    if (!this.#runtime) {
      const host = getInstance();
      this.#onHostPage = host !== undefined;
      this.#runtime = host ?? createInstance({ name: this.#hostName, remotes: [] });
    }
    this.#ensureSharedPlugin(this.#runtime);
    return this.#runtime;
  }

  get #hostName(): string {
    return this.#runtime?.options?.name ?? this.#options.hostName ?? 'desk_sdk_host';
  }

  /** The versions of the shared singletons the Desk provides (package -> version). */
  deskVersions(): Record<string, string> {
    return deskSharedVersions(this.runtime.shareScopeMap, this.#hostName);
  }

  /**
   * Checks what a container registered in the share scope when it was initialised, before any of its
   * modules runs: a remote requiring a shared singleton the Desk's version cannot serve stops there.
   */
  #ensureSharedPlugin(runtime: FederationRuntime): void {
    if (this.#sharedPluginRegistered || !runtime.registerPlugins) return;
    this.#sharedPluginRegistered = true;
    runtime.registerPlugins([sharedVersionsPlugin(() => this.deskVersions())]);
  }

  /** The manifest beside `entry`, fetched once; undefined when not checking or there is none. */
  #manifest(entry: string): Promise<RemoteManifestView | undefined> {
    // Resolving the runtime first tells whether this is the Desk's page.
    void this.runtime;
    const enabled = this.#options.checkManifests ?? (this.#options.fetch !== undefined || this.#onHostPage);
    if (!enabled) return Promise.resolve(undefined);
    return this.#manifests.read(entry);
  }

  /** The requirement `service`'s manifest shows it breaks, before any of its code runs. */
  async #preflight(service: string, entry: string, exposed: string): Promise<RemoteDiagnosis | undefined> {
    const manifest = await this.#manifest(entry);
    return manifest && checkRemoteManifest(manifest, service, exposed, this.deskVersions(), satisfy);
  }

  /** Reports a diagnosed failure on the console (the code first, for searching) and returns its error. */
  #diagnosed(service: string, diagnosis: RemoteDiagnosis, cause?: unknown): RemoteLoadError {
    const error = new RemoteLoadError(service, diagnosis, cause);
    console.error(`[desk] ${error.message}`);
    return error;
  }

  /**
   * Registers `service`'s remote from its manifest. Returns false for a data-only service (`url: null`).
   * Registering the same entry again is a no-op; a changed entry replaces the old one.
   */
  register(service: string, manifest: Pick<ServiceManifest, 'url' | 'integrity'>): boolean {
    if (!manifest.url) return false;
    if (manifest.integrity) {
      this.#integrity.set(entryKey(manifest.url), manifest.integrity);
      this.#ensureIntegrityPlugin();
    } else {
      this.#integrity.delete(entryKey(manifest.url));
    }
    const previous = this.#entries.get(service);
    if (previous === manifest.url) return true;
    // A changed entry (a redeploy, an override) may have another manifest.
    if (previous !== undefined) this.#manifests.forget(previous);
    this.runtime.registerRemotes([{ name: service, entry: manifest.url }], { force: previous !== undefined });
    this.#entries.set(service, manifest.url);
    return true;
  }

  /** The SRI hash `service`'s entry is loaded with, if its manifest published one. */
  integrityOf(service: string): string | undefined {
    const entry = this.#entries.get(service);
    return entry === undefined ? undefined : this.#integrity.get(entryKey(entry));
  }

  #ensureIntegrityPlugin(): void {
    if (this.#pluginRegistered) return;
    this.#pluginRegistered = true;
    this.runtime.registerPlugins?.([integrityPlugin((url) => this.#integrity.get(url))]);
  }

  /** The shared-version mismatches found when `service`'s remote loaded (empty when none). */
  sharedMismatches(service: string): SharedVersionMismatch[] {
    return this.#mismatches.get(service) ?? [];
  }

  #checkSharedVersions(service: string): void {
    if (this.#mismatches.has(service)) return;
    const host = this.runtime.options?.name ?? this.#options.hostName ?? 'desk_sdk_host';
    const found = sharedVersionMismatches(this.runtime.shareScopeMap, service, host);
    this.#mismatches.set(service, found);
    for (const mismatch of found) {
      console.warn(describeMismatch(mismatch));
      this.hooks.emit('sharedVersionMismatch', mismatch);
    }
  }

  /**
   * The service whose remote `url` belongs to: the one whose entry's directory the URL lies in (a remote's
   * chunks sit beside its `remoteEntry.js`). Used to tell which remote a script-inserted style came from.
   */
  serviceOfUrl(url: string): string | undefined {
    for (const [service, entry] of this.#entries) {
      let base: string;
      try {
        base = new URL('.', entry).href;
      } catch {
        continue;
      }
      if (url.startsWith(base)) return service;
    }
    return undefined;
  }

  /**
   * Runs no remote's code until `gate` has settled (whatever its outcome): the shell starts its style guard
   * this way, in its own chunk, in parallel with the first remote's manifest and entry.
   */
  before(gate: Promise<unknown>): void {
    this.#gates.push(gate);
  }

  /** True when `service` has a registered remote. */
  isRegistered(service: string): boolean {
    return this.#entries.has(service);
  }

  /**
   * Loads the module `exposed` (e.g. `./CustomerList`) of `service`'s remote: each attempt is bounded by
   * `timeoutMs`; after a failure the remote is registered afresh and tried once more. Rejects with
   * `remote_not_registered`, `remote_timeout` or `remote_load_failed`.
   */
  async load<T>(service: string, exposed: string): Promise<T> {
    const entry = this.#entries.get(service);
    if (entry === undefined) {
      throw new SdkError('remote_not_registered', `No UI remote is registered for service "${service}".`);
    }
    const id = `${service}/${exposed.replace(/^\.\//, '')}`;
    const attempts = 1 + Math.max(0, this.#options.retries ?? 1);
    const timeoutMs = this.#options.timeoutMs ?? 10_000;
    let error: SdkError | undefined;
    const [refused] = await Promise.all([
      this.#preflight(service, entry, exposed),
      Promise.allSettled(this.#gates),
    ]);
    if (refused) {
      error = this.#diagnosed(service, refused);
      this.hooks.emit('loadRemoteError', { service, exposed, error });
      throw error;
    }
    for (let attempt = 1; attempt <= attempts; attempt++) {
      this.hooks.emit('beforeLoadRemote', { service, exposed, attempt });
      try {
        // A failed entry may be cached by the runtime: register it afresh before retrying.
        if (attempt > 1) this.runtime.registerRemotes([{ name: service, entry }], { force: true });
        const module = await withTimeout(this.runtime.loadRemote<T>(id), timeoutMs);
        if (module === TIMEOUT) {
          error = new SdkError('remote_timeout', `Loading ${id} timed out after ${timeoutMs} ms.`);
          continue;
        }
        if (module === null || module === undefined) throw new Error(`${id} resolved to no module`);
        const shape = exposed === VIEWS_MODULE ? checkViewsShape(module) : undefined;
        if (shape) {
          error = this.#diagnosed(service, shape);
          break;
        }
        this.#checkSharedVersions(service);
        this.hooks.emit('afterLoadRemote', { service, exposed, attempt, module });
        return module;
      } catch (cause) {
        // A CSP refusal is reported by an event queued after the script's own events: let it arrive.
        await new Promise((resolve) => setTimeout(resolve, 0));
        // The failure's classification loads only when a load fails (it is not needed on the first screen).
        const diagnosis =
          diagnosisOf(cause) ??
          (await import(/* webpackChunkName: "remote-failure" */ './load-failure')).classifyLoadFailure(
            service,
            entry,
            exposed,
            cause,
            this.#refusals,
          );
        if (diagnosis) {
          // A broken requirement stays broken: retrying cannot help.
          error = this.#diagnosed(service, diagnosis, cause);
          break;
        }
        error = await loadFailureOf(
          service,
          exposed,
          entry,
          this.#integrity.get(entryKey(entry)),
          cause,
          this.#options.fetch,
        );
        // A changed entry stays changed: retrying cannot help.
        if (error.code === 'remote_integrity_failed') break;
      }
    }
    this.hooks.emit('loadRemoteError', { service, exposed, error: error! });
    throw error!;
  }

  /** Preloads `service`'s remote entry (and `exposes`, when given) ahead of use; bounded by `timeoutMs`. */
  async preload(service: string, exposes?: string[]): Promise<void> {
    if (!this.#entries.has(service)) {
      throw new SdkError('remote_not_registered', `No UI remote is registered for service "${service}".`);
    }
    const timeoutMs = this.#options.timeoutMs ?? 10_000;
    try {
      const args = exposes ? { nameOrAlias: service, exposes } : { nameOrAlias: service };
      const outcome = await withTimeout(this.runtime.preloadRemote([args]), timeoutMs);
      if (outcome === TIMEOUT) {
        throw new SdkError('remote_timeout', `Preloading ${service} timed out after ${timeoutMs} ms.`);
      }
    } catch (cause) {
      if (isSdkError(cause)) throw cause;
      throw new SdkError('remote_load_failed', `The UI remote of "${service}" could not be preloaded.`, {
        cause,
      });
    }
  }

  /**
   * A prewarm warmer (`discovery.prewarm(services, { warmers: [loader.warm] })`): registers the service's
   * remote and, in a browser, hints its entry to the browser (`<link rel="preload" as="script">`, with the
   * published integrity). It runs no remote code: the entry executes when a screen loads one of its modules
   * ({@link load}). Does nothing for a data-only service.
   */
  warm = async (service: string, manifest: Pick<ServiceManifest, 'url' | 'integrity'>): Promise<void> => {
    if (!this.register(service, manifest) || !manifest.url) return;
    hintEntry(manifest.url, manifest.integrity);
    // Read ahead, so the check before the first load costs no round trip of its own.
    void this.#manifest(manifest.url);
  };
}
