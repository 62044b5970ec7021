/**
 * One `POST /api/gateway/discovery/query` round trip (docs/http-api.md#gateway-discovery): sends the query
 * with a timeout, checks the answer's shape and turns every failure into a coded {@link SdkError}
 * (`discovery_timeout`, `discovery_failed`), so a batch's callers get one error they can switch on.
 */

import {
  DISCOVERY_QUERY_PATH,
  type DiscoveryQuery,
  type DiscoveryResult,
  type RemoteEntries,
  type ServiceManifest,
} from '../../protocol';
import { isAbortError, SdkError } from '../errors';

/** What {@link postDiscoveryQuery} needs from its caller. */
export interface DiscoveryTransport {
  /** Base URL of the gateway (`''` = same origin). */
  gatewayUrl: string;
  fetch: typeof globalThis.fetch;
  timeoutMs: number;
}

/** Joins a base URL and an absolute path without doubling the slash. */
function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}

/**
 * Sends `query` and returns the validated result. The timeout uses `setTimeout` + `AbortController` rather
 * than `AbortSignal.timeout` so fake timers in tests control it.
 */
export async function postDiscoveryQuery(
  transport: DiscoveryTransport,
  query: DiscoveryQuery,
): Promise<DiscoveryResult> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, transport.timeoutMs);
  try {
    const response = await transport.fetch(joinUrl(transport.gatewayUrl, DISCOVERY_QUERY_PATH), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(query),
      // Discovery is public (docs/security.md#auth): without the session cookie the request needs no CSRF
      // token.
      credentials: 'omit',
      signal: controller.signal,
    });
    if (!response.ok) {
      const code = await errorCodeOf(response);
      throw new SdkError(
        'discovery_failed',
        `Discovery query failed with status ${response.status}${code ? ` (${code})` : ''}.`,
        { status: response.status },
      );
    }
    return parseResult(await response.json());
  } catch (err) {
    if (timedOut) {
      throw new SdkError('discovery_timeout', `Discovery query timed out after ${transport.timeoutMs} ms.`, {
        cause: err,
      });
    }
    if (err instanceof SdkError) throw err;
    throw new SdkError(
      'discovery_failed',
      isAbortError(err) ? 'Discovery query was aborted.' : 'Discovery query failed.',
      { cause: err },
    );
  } finally {
    clearTimeout(timer);
  }
}

async function errorCodeOf(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.json()) as { error?: { code?: unknown } };
    return typeof body?.error?.code === 'string' ? body.error.code : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isManifest(value: unknown): value is ServiceManifest {
  return (
    isRecord(value) &&
    typeof value.apiUrl === 'string' &&
    (typeof value.url === 'string' || value.url === null) &&
    (value.rev === undefined || typeof value.rev === 'number') &&
    (value.doctypes === undefined || Array.isArray(value.doctypes))
  );
}

/** Checks the answer's shape: a malformed answer must not poison the cache. */
function parseResult(body: unknown): DiscoveryResult {
  if (!isRecord(body) || !isRecord(body.resources)) {
    throw new SdkError('discovery_failed', 'Discovery answer is malformed: no "resources" map.');
  }
  const resources: Record<string, string | null> = {};
  for (const [docType, owner] of Object.entries(body.resources)) {
    if (docType === '__proto__') continue; // never let an answer reach an object's prototype
    if (owner !== null && typeof owner !== 'string') {
      throw new SdkError('discovery_failed', `Discovery answer is malformed: owner of ${docType}.`);
    }
    resources[docType] = owner;
  }
  const services: Record<string, ServiceManifest> = {};
  for (const [name, manifest] of Object.entries(isRecord(body.services) ? body.services : {})) {
    if (name === '__proto__') continue;
    if (!isManifest(manifest)) {
      throw new SdkError('discovery_failed', `Discovery answer is malformed: manifest of ${name}.`);
    }
    services[name] = {
      ...manifest,
      service: manifest.service ?? name,
      rev: manifest.rev ?? 0,
      metaUrl: manifest.metaUrl ?? '',
      doctypes: manifest.doctypes ?? [],
    };
  }
  const remotes = parseRemoteEntries(body.remotes);
  return remotes ? { resources, services, remotes } : { resources, services };
}

/**
 * The answer's `remotes`, when it has one (an older gateway's has none). Malformed, it is left out rather
 * than failing the answer: the Desk then asks the remotes map itself, as it does without the field.
 */
function parseRemoteEntries(value: unknown): RemoteEntries | undefined {
  if (!isRecord(value)) return undefined;
  const entries: RemoteEntries = {};
  for (const [name, url] of Object.entries(value)) {
    if (name === '__proto__') continue;
    if (typeof url !== 'string') return undefined;
    entries[name] = url;
  }
  return entries;
}
