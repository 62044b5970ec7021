/** What a {@link RemoteLoader} is configured with, and what its lifecycle hooks carry. */
import type { SdkError } from '../errors';
import type { FederationRuntime } from './federation-runtime';
import type { SharedVersionMismatch } from './shared-versions';

/** Payloads of the loader's lifecycle hooks. */
export interface RemoteLoaderHookEvents {
  [event: string]: unknown;
  /** An attempt to load `service/exposed` starts (attempt 1, then 2 on the retry). */
  beforeLoadRemote: { service: string; exposed: string; attempt: number };
  /** The module arrived. */
  afterLoadRemote: { service: string; exposed: string; attempt: number; module: unknown };
  /** Every attempt failed; `error` is what `load` rejects with. */
  loadRemoteError: { service: string; exposed: string; error: SdkError };
  /** A loaded remote registered `react` or `react-dom` at another version than the Desk's. */
  sharedVersionMismatch: SharedVersionMismatch;
}

/** Options of {@link RemoteLoader}. */
export interface RemoteLoaderOptions {
  /** Runtime instance; default the host's (`getInstance()`), else a new one, created on first use. */
  runtime?: FederationRuntime;
  /** Timeout of one load or preload attempt; default 10 s. */
  timeoutMs?: number;
  /** Retries after a failed load; default 1. */
  retries?: number;
  /** Name of the runtime instance created when the page has none; default `desk_sdk_host`. */
  hostName?: string;
  /** Fetch used to tell an integrity failure from another load failure; default the global one. */
  fetch?: typeof fetch;
  /**
   * Read each remote's `mf-manifest.json` before running it, and refuse one that breaks the remote contract.
   * Default: on in the Desk's page (the host's runtime instance) or when `fetch` is given.
   */
  checkManifests?: boolean;
}
