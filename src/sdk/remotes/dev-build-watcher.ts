/**
 * Follows the build status of the dev servers that overridden remotes come from (`m app dev` pushes it as
 * Server-Sent Events, see `protocol/dev-build.ts`), so the Desk can show a failed build over the remote's
 * area and hide it when the fix builds. Framework-agnostic: React reads it through `useSyncExternalStore`.
 */
import {
  DEV_BUILD_STATUS_EVENT,
  DEV_BUILD_STATUS_PATH,
  type DevBuildStatus,
  parseDevBuildStatus,
} from '../../protocol/dev-build';
import { SnapshotStore } from '../store';

/** The status stream of the dev server that serves `entryUrl` (its `remoteEntry.js`); undefined when unparsable. */
export function devBuildStatusUrl(entryUrl: string): string | undefined {
  try {
    return new URL(DEV_BUILD_STATUS_PATH, entryUrl).href;
  } catch {
    return undefined;
  }
}

/** The slice of `EventSource` used (tests pass a fake). */
export interface BuildEventSource {
  addEventListener(type: string, listener: (event: { data: string }) => void): void;
  close(): void;
}

/** Opens a stream at `url`; default the browser's `EventSource`. */
export type OpenBuildEvents = (url: string) => BuildEventSource;

/** Service -> its dev server's latest build status (a service that said nothing yet is absent). */
export type DevBuildSnapshot = Readonly<Record<string, DevBuildStatus>>;

/**
 * One stream per overridden service, opened by {@link DevBuildWatcher.watch}; the snapshot holds each
 * service's latest status. A dev server that is not running (or not `m app dev`) simply never reports:
 * `EventSource` retries on its own, and nothing is shown.
 *
 * @example
 * const builds = new DevBuildWatcher();
 * builds.watch('notes', 'http://127.0.0.1:3001/remoteEntry.js');
 * builds.getSnapshot().notes // { state: 'failed', errors: [{ file: 'ui/NoteForm.tsx', line: 12, ... }] }
 */
export class DevBuildWatcher extends SnapshotStore<DevBuildSnapshot> {
  readonly #open: OpenBuildEvents | undefined;
  readonly #streams = new Map<string, { url: string; source: BuildEventSource }>();
  #statuses: DevBuildSnapshot = {};

  constructor(open?: OpenBuildEvents) {
    super();
    this.#open = open ?? (typeof EventSource === 'undefined' ? undefined : (url) => new EventSource(url));
  }

  /** Follows the dev server of `service`'s overriding entry `entryUrl`; watching the same URL again does nothing. */
  watch(service: string, entryUrl: string): void {
    const url = devBuildStatusUrl(entryUrl);
    if (!url || !this.#open || this.#streams.get(service)?.url === url) return;
    this.unwatch(service);
    const source = this.#open(url);
    source.addEventListener(DEV_BUILD_STATUS_EVENT, (event) => {
      const status = parseDevBuildStatus(event.data);
      if (!status || this.#streams.get(service)?.source !== source) return;
      this.#statuses = { ...this.#statuses, [service]: status };
      this.notify();
    });
    this.#streams.set(service, { url, source });
  }

  /** Stops following `service` and forgets its status. */
  unwatch(service: string): void {
    const stream = this.#streams.get(service);
    if (!stream) return;
    stream.source.close();
    this.#streams.delete(service);
    if (service in this.#statuses) {
      const { [service]: _gone, ...rest } = this.#statuses;
      this.#statuses = rest;
      this.notify();
    }
  }

  /** Closes every stream. */
  dispose(): void {
    for (const service of [...this.#streams.keys()]) this.unwatch(service);
  }

  protected createSnapshot(): DevBuildSnapshot {
    return this.#statuses;
  }
}
