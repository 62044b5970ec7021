import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ServiceManifest } from '../../src/protocol';
import { appDirOf } from '../apps/index';
import { remoteEntryIntegrity } from '../apps/remote-integrity';
import { entryIntegrity, releaseEntryUrl } from '../releases/personal-discovery';
import type { ReleaseService } from '../releases/release-service';
import type { DirectoryListener, ServiceDirectory } from './service-directory';

/** Options of {@link createMonolithDirectory}. */
export interface MonolithDirectoryOptions {
  /** The installed apps (name and DocType names). */
  apps: ReadonlyArray<{ name: string; dir?: string; doctypes: ReadonlyArray<{ name: string }> }>;
  /** Folder holding `<app>/static/mfe/remoteEntry.js` (an app with its own `dir` has it there instead). */
  appsDir: string;
  /** Base of every manifest URL; read on each scan so a server bound to port 0 can fill it in later. */
  publicUrl: () => string;
  /** How long a scan result is reused before the filesystem is checked again; default 2000 ms. */
  rescanMs?: number;
  /** Injectable clock (ms). */
  now?: () => number;
  /**
   * Published releases (docs/mfe-teams.md#releases): a service with a live release is announced with that
   * release's entry and published hash instead of its `static/mfe/` scan; a channel change is a new manifest.
   */
  releases?: Pick<ReleaseService, 'chosen' | 'channel' | 'subscribe'>;
}

/** A ServiceDirectory that can be told to rescan now (e.g. after a build wrote a remoteEntry.js). */
export interface MonolithDirectory extends ServiceDirectory {
  /** Rescans immediately; true when a manifest changed. */
  refresh(): boolean;
}

/**
 * Path, relative to an app's folder, whose presence makes the app a UI remote
 * (docs/http-api.md#monolith-discovery).
 */
export const REMOTE_ENTRY_PATH = join('static', 'mfe', 'remoteEntry.js');

/**
 * MONOLITH discovery (docs/http-api.md#monolith-discovery): every installed app is a data service with
 * `apiUrl` `<publicUrl>/api`, `metaUrl` `<publicUrl>/api/meta/<app>` and `openapiUrl`
 * `<publicUrl>/api/openapi.json`; an app whose `static/mfe/remoteEntry.js` exists also gets `url`
 * `<publicUrl>/desk/assets/<app>/remoteEntry.js`, else `url: null`; `integrity` is the entry's SRI hash (sha384), so a rebuilt entry is a new manifest. The
 * filesystem is rechecked at most every `rescanMs`, so a build finishing after the start is picked up. `rev` starts at the wall clock in ms and
 * only grows: a manifest whose content changes gets a rev above both its previous one and the current time,
 * so a client's cached rev from before a restart is older. A service with a live release is announced with
 * `url` `<publicUrl>/desk/assets/<app>/<version>/remoteEntry.js` and that release's published hash, and a
 * change of its channel is applied at once (docs/mfe-teams.md#releases).
 */
export function createMonolithDirectory(options: MonolithDirectoryOptions): MonolithDirectory {
  const now = options.now ?? Date.now;
  const rescanMs = options.rescanMs ?? 2000;
  const owners = new Map<string, string>();
  for (const app of options.apps) for (const d of app.doctypes) owners.set(d.name, app.name);
  const listeners = new Set<DirectoryListener>();
  let manifests = new Map<string, ServiceManifest>();
  let fingerprints = new Map<string, string>();
  let scannedAt = Number.NEGATIVE_INFINITY;

  function scan(): boolean {
    scannedAt = now();
    const base = options.publicUrl().replace(/\/+$/, '');
    const next = new Map<string, ServiceManifest>();
    const nextPrints = new Map<string, string>();
    let changed = false;
    for (const app of [...options.apps].sort((a, b) => a.name.localeCompare(b.name))) {
      const live = options.releases?.chosen(app.name, undefined)?.release;
      const entryFile = join(appDirOf(app, options.appsDir), REMOTE_ENTRY_PATH);
      const hasRemote = live !== undefined || existsSync(entryFile);
      const integrity = live ? entryIntegrity(live) : hasRemote ? remoteEntryIntegrity(entryFile) : undefined;
      const url = live
        ? releaseEntryUrl(base, app.name, live.version)
        : `${base}/desk/assets/${app.name}/remoteEntry.js`;
      const body = {
        service: app.name,
        url: hasRemote ? url : null,
        apiUrl: `${base}/api`,
        metaUrl: `${base}/api/meta/${app.name}`,
        openapiUrl: `${base}/api/openapi.json`,
        doctypes: app.doctypes.map((d) => d.name),
        ...(integrity ? { integrity } : {}),
      };
      // A canary or pin change leaves the live manifest as it is but hands some users another release: the
      // channel's rev in the fingerprint makes it a new manifest, so clients ask again.
      const channelRev = options.releases?.channel(app.name).rev ?? 0;
      const print = JSON.stringify({ ...body, channelRev });
      const previous = manifests.get(app.name);
      let rev = previous?.rev ?? 0;
      if (fingerprints.get(app.name) !== print) {
        rev = Math.max(rev + 1, Math.floor(now()));
        changed = true;
      }
      next.set(app.name, { ...body, rev });
      nextPrints.set(app.name, print);
    }
    manifests = next;
    fingerprints = nextPrints;
    return changed;
  }

  function current(): Map<string, ServiceManifest> {
    if (now() - scannedAt >= rescanMs && scan()) notify();
    return manifests;
  }

  function notify(): void {
    const list = [...manifests.values()];
    for (const listener of listeners) listener(list);
  }

  scan();
  options.releases?.subscribe(() => {
    if (scan()) notify();
  });
  return {
    list: () => [...current().values()],
    get: (service) => current().get(service),
    ownerOf: (doctype) => owners.get(doctype),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    refresh() {
      const changed = scan();
      if (changed) notify();
      return changed;
    },
  };
}
