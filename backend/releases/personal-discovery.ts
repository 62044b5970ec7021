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
 * discovery answers the Desk reads (the remotes map, the services list, discovery query manifests and their
 * `remotes`): the directory's answers carry the live release, which is what every user without a pin or
 * canary gets, so only answers to users sent elsewhere are rewritten (with their `channel`, canary or
 * pinned, and the live release's `liveUrl`), and the shared answer cache stays as it is. A discovery query
 * without credentials (the SDK sends it so) cannot be answered per user: while a canary or pin exists, its
 * `remotes` is left out, and the Desk asks the remotes map with its session instead. Without any canary or
 * pin nothing is read back: the discovery path costs one check.
 */
export function personalDiscovery(releases: ReleaseService): MiddlewareHandler<AppEnv> {
  const paths = new Set<string>([REMOTES_PATH, SERVICES_PATH, DISCOVERY_QUERY_PATH]);
  return async (c, next) => {
    await next();
    if (!releases.sendsSomeUsersElsewhere()) return;
    if (!paths.has(c.req.path) || c.res.status !== 200) return;
    const principal = c.get('principal');
    const isQuery = c.req.path === DISCOVERY_QUERY_PATH;
    if (!principal && !isQuery) return;
    const text = await c.res.clone().text();
    // A key of the answer's own: names and URLs cannot hold a quote, so most anonymous answers stop here.
    if (!principal && !text.includes('"remotes":')) return;
    const answer = JSON.parse(text) as Record<string, unknown>;
    const changed = principal
      ? personalise(releases, principal, answer, isQuery)
      : withoutSharedEntries(answer);
    if (!changed) return;
    const headers = new Headers(c.res.headers);
    headers.delete('content-length');
    c.res = new Response(JSON.stringify(answer), { status: 200, headers });
  };
}

type Chooser = Pick<ReleaseService, 'chosen' | 'channel'>;

/** Drops a discovery answer's `remotes` (the live entries, maybe not this caller's); true when it had one. */
function withoutSharedEntries(answer: Record<string, unknown>): boolean {
  if (answer.remotes === undefined) return false;
  delete answer.remotes;
  return true;
}

/** Rewrites the units (and a discovery answer's `remotes`) of `principal`'s services; true when any changed. */
function personalise(
  releases: Chooser,
  principal: Parameters<ReleaseService['chosen']>[1],
  answer: Record<string, unknown>,
  isQuery: boolean,
): boolean {
  const units = (isQuery ? answer.services : answer) as Record<string, Unit> | undefined;
  const entries = (isQuery ? answer.remotes : undefined) as Record<string, string> | undefined;
  let changed = false;
  for (const [service, unit] of Object.entries(units ?? {})) {
    if (!unit?.url) continue;
    const url = chosenUrl(releases, principal, service, unit.url);
    if (!url) continue;
    unit.url = url.url;
    if (url.integrity) unit.integrity = url.integrity;
    // Why, and what everyone else gets: the Desk's developer details show both.
    unit.channel = url.channel;
    if (url.liveUrl) unit.liveUrl = url.liveUrl;
    changed = true;
  }
  for (const [service, entry] of Object.entries(entries ?? {})) {
    const url = chosenUrl(releases, principal, service, entry);
    if (!url) continue;
    entries![service] = url.url;
    changed = true;
  }
  return changed;
}

/** Where `principal` is sent instead of the live entry `liveEntry`; undefined when they get the live one. */
function chosenUrl(
  releases: Chooser,
  principal: Parameters<ReleaseService['chosen']>[1],
  service: string,
  liveEntry: string,
): { url: string; integrity?: string; channel: 'canary' | 'pinned'; liveUrl?: string } | undefined {
  const choice = releases.chosen(service, principal);
  if (!choice || choice.why === 'live') return undefined;
  const integrity = entryIntegrity(choice.release);
  const base = liveEntry.slice(0, liveEntry.indexOf('/desk/assets/'));
  const live = releases.channel(service).live;
  return {
    url: releaseEntryUrl(base, service, choice.release.version),
    ...(integrity ? { integrity } : {}),
    channel: choice.why === 'canary' ? 'canary' : 'pinned',
    ...(live ? { liveUrl: releaseEntryUrl(base, service, live) } : {}),
  };
}
