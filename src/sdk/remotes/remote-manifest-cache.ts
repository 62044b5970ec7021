/**
 * Each remote's `mf-manifest.json`, read once per entry URL: the check before a remote's first load and the
 * read-ahead of a prewarm share one request.
 */
import { fetchRemoteManifest, type RemoteManifestView } from './remote-manifest';

/** The manifests read so far, by entry URL (undefined when the remote has none). */
export class RemoteManifestCache {
  readonly #reads = new Map<string, Promise<RemoteManifestView | undefined>>();
  readonly #fetch: () => typeof fetch;

  /** `fetchImpl` is looked up at each read, so a test's later replacement of the global is used. */
  constructor(fetchImpl: () => typeof fetch) {
    this.#fetch = fetchImpl;
  }

  /** The manifest beside `entry`, fetched on the first call. */
  read(entry: string): Promise<RemoteManifestView | undefined> {
    let pending = this.#reads.get(entry);
    if (!pending) {
      pending = fetchRemoteManifest(entry, this.#fetch());
      this.#reads.set(entry, pending);
    }
    return pending;
  }

  /** Forgets `entry`'s manifest: a replaced entry (a redeploy, an override) may have another one. */
  forget(entry: string): void {
    this.#reads.delete(entry);
  }
}
