import type { MiddlewareHandler } from 'hono';
import {
  DISCOVERY_QUERY_PATH,
  REMOTES_PATH,
  type ReleaseAssignment,
  SERVICES_PATH,
} from '../../src/protocol';
import type { AppEnv } from '../http/env';
import type { Release } from './model';
import type { ReleaseService } from './release-service';

/** The URL of a release's `remoteEntry.js`: its chunks load relative to it, from the same release. */
export function releaseEntryUrl(base: string, service: string, version: string): string {
  return `${base.replace(/\/+$/, '')}/desk/assets/${service}/${version}/remoteEntry.js`;
}

/** The published hash of a release's `remoteEntry.js`, the `integrity` its manifest carries. */
export function entryIntegrity(release: Pick<Release, 'files'>): string | undefined {
  return release.files.find((f) => f.path === 'remoteEntry.js')?.sha384;
}

type Unit = { url?: string | null; integrity?: string } & ReleaseAssignment;

/**
 * Hands each signed-in user the release chosen for them (docs/mfe-teams.md#canaries-and-pins) in the
 * discovery answers the Desk reads (the remotes map, the services list, discovery query manifests): the
 * directory's answers carry the live release, which is what every user without a pin or canary gets, so
 * only answers to users sent elsewhere are rewritten (with their `channel`, canary or pinned, and the live
 * release's `liveUrl`), and the shared answer cache stays as it is. Without any
 * canary or pin nothing is read back: the discovery path costs one check.
 */
export function personalDiscovery(releases: ReleaseService): MiddlewareHandler<AppEnv> {
  const paths = new Set<string>([REMOTES_PATH, SERVICES_PATH, DISCOVERY_QUERY_PATH]);
  return async (c, next) => {
    await next();
    const principal = c.get('principal');
    if (!principal || !releases.sendsSomeUsersElsewhere()) return;
    if (!paths.has(c.req.path) || c.res.status !== 200) return;
    const answer = (await c.res.clone().json()) as Record<string, unknown>;
    const units = (c.req.path === DISCOVERY_QUERY_PATH ? answer.services : answer) as
      | Record<string, Unit>
      | undefined;
    if (!units) return;
    let changed = false;
    for (const [service, unit] of Object.entries(units)) {
      if (!unit?.url) continue;
      const choice = releases.chosen(service, principal);
      if (!choice || choice.why === 'live') continue;
      const integrity = entryIntegrity(choice.release);
      const base = unit.url.slice(0, unit.url.indexOf('/desk/assets/'));
      unit.url = releaseEntryUrl(base, service, choice.release.version);
      if (integrity) unit.integrity = integrity;
      // Why, and what everyone else gets: the Desk's developer details show both.
      unit.channel = choice.why === 'canary' ? 'canary' : 'pinned';
      const live = releases.channel(service).live;
      if (live) unit.liveUrl = releaseEntryUrl(base, service, live);
      changed = true;
    }
    if (!changed) return;
    const headers = new Headers(c.res.headers);
    headers.delete('content-length');
    c.res = new Response(JSON.stringify(answer), { status: 200, headers });
  };
}
