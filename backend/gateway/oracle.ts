/**
 * The JIT discovery oracle (docs/http-api.md#gateway-discovery): parsing and answering a discovery query.
 * Pure and browser-safe (no Node APIs), so the MSW mocks answer with exactly the backend's logic.
 */

import { DOCTYPE_NAME_PATTERN } from '../../src/contract/doctype';
import type { DiscoveryQuery, DiscoveryResult, RemoteEntries, RemotesMap } from '../../src/protocol';
import { PlatformError } from '../http/errors';
import { parseSafeJson } from '../http/safe-json';
import type { ServiceDirectory } from './service-directory';

/** Input limits of a discovery query (`[tool.platform.gateway]`). */
export interface DiscoveryLimits {
  /** Most entries in `resources`, and in `services`. */
  maxResources: number;
  /** Largest request body in bytes (UTF-8). */
  maxBodyBytes: number;
}

/** Pattern of a service name (the `<app>` of `<app>.<DocType>`). */
export const SERVICE_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** The limits from a `[tool.platform]` configuration. */
export function discoveryLimits(config: {
  gateway: { max_resources: number; max_body_bytes: number };
}): DiscoveryLimits {
  return { maxResources: config.gateway.max_resources, maxBodyBytes: config.gateway.max_body_bytes };
}

function invalid(message: string): PlatformError {
  return new PlatformError('invalid_query', message, { status: 400 });
}

/** 413 `payload_too_large` for a body over the limit, raised before any parsing. */
export function bodyTooLarge(limits: DiscoveryLimits): PlatformError {
  return new PlatformError(
    'payload_too_large',
    `The discovery query is larger than ${limits.maxBodyBytes} bytes.`,
    { status: 413 },
  );
}

function utf8Length(text: string): number {
  // A UTF-16 code unit is 1 to 3 UTF-8 bytes (a surrogate pair, two units, is 4), so length is a lower bound
  // and the exact count is only computed when the cheap bound passes.
  return new TextEncoder().encode(text).length;
}

/**
 * Validates a discovery query. `raw` is the body text (size-checked, then parsed as JSON with depth and
 * prototype protection) or an already parsed value (a body the decryption middleware produced).
 * Rules (docs/security.md#hostile-inputs): an object; `resources` an array of at most `maxResources` strings,
 * each `<app>.<DocType>` (DOCTYPE_NAME_PATTERN); `services`, when present, an object of at most
 * `maxResources` service names mapped to non-negative integer revisions; `remotes`, when present, a boolean.
 * Other keys are ignored. Throws 413
 * `payload_too_large` or 400 `invalid_query` naming the offending position, never echoing the input.
 * Duplicate resources are answered once.
 */
export function parseDiscoveryQuery(raw: unknown, limits: DiscoveryLimits): DiscoveryQuery {
  let value = raw;
  if (typeof raw === 'string') {
    if (raw.length > limits.maxBodyBytes || utf8Length(raw) > limits.maxBodyBytes) throw bodyTooLarge(limits);
    if (raw.trim() === '') throw invalid('The body must be a JSON object with a "resources" array.');
    try {
      value = parseSafeJson(raw);
    } catch {
      throw invalid('The body is not valid JSON.');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid('The body must be a JSON object with a "resources" array.');
  }
  const body = value as Record<string, unknown>;
  const resources = body.resources;
  if (!Array.isArray(resources)) throw invalid('"resources" must be an array of DocType names.');
  if (resources.length > limits.maxResources) {
    throw invalid(`"resources" has more than ${limits.maxResources} entries.`);
  }
  resources.forEach((r, i) => {
    if (typeof r !== 'string') throw invalid(`resources[${i}] must be a string.`);
    if (!DOCTYPE_NAME_PATTERN.test(r)) {
      throw invalid(`resources[${i}] is not a DocType name of the form <app>.<DocType>.`);
    }
  });
  const query: DiscoveryQuery = { resources: [...new Set(resources as string[])] };
  if (body.services !== undefined) {
    const services = body.services;
    if (typeof services !== 'object' || services === null || Array.isArray(services)) {
      throw invalid('"services" must be an object mapping service names to revisions.');
    }
    const entries = Object.entries(services);
    if (entries.length > limits.maxResources) {
      throw invalid(`"services" has more than ${limits.maxResources} entries.`);
    }
    const revs: Record<string, number> = {};
    for (const [i, [name, rev]] of entries.entries()) {
      if (!SERVICE_NAME_PATTERN.test(name)) throw invalid(`services key #${i + 1} is not a service name.`);
      if (typeof rev !== 'number' || !Number.isSafeInteger(rev) || rev < 0) {
        throw invalid(`services.${name} must be a non-negative integer revision.`);
      }
      revs[name] = rev;
    }
    query.services = revs;
  }
  if (body.remotes !== undefined) {
    if (typeof body.remotes !== 'boolean') throw invalid('"remotes" must be true or false.');
    if (body.remotes) query.remotes = true;
  }
  return query;
}

/**
 * Answers a discovery query (docs/http-api.md#gateway-discovery, the `rev` handshake): every resource maps to
 * its owner or `null`; `services` holds the manifest of (a) each service the client named whose `rev` is
 * newer than the one it holds, and (b) each owner of a resolved resource the client did not name at all. A
 * service the client holds at the current `rev` is left out. With `remotes: true`, `remotes` names the entry
 * of every service that ships a UI remote ({@link remoteEntries}).
 */
export function answerDiscoveryQuery(
  directory: Pick<ServiceDirectory, 'get' | 'ownerOf' | 'list'>,
  query: DiscoveryQuery,
): DiscoveryResult {
  const held = query.services ?? {};
  const result: DiscoveryResult = { resources: {}, services: {} };
  const wanted = new Set<string>();
  for (const resource of query.resources) {
    const owner = directory.ownerOf(resource) ?? null;
    result.resources[resource] = owner;
    if (owner !== null && !Object.hasOwn(held, owner)) wanted.add(owner);
  }
  for (const name of Object.keys(held)) wanted.add(name);
  for (const name of [...wanted].sort()) {
    const manifest = directory.get(name);
    if (!manifest) continue;
    const clientRev = Object.hasOwn(held, name) ? held[name]! : 0;
    if (manifest.rev > clientRev) result.services[name] = manifest;
  }
  if (query.remotes) result.remotes = remoteEntries(directory);
  return result;
}

/**
 * The `remotes` of a discovery answer: the entry URL of each service that ships a UI remote, what
 * `GET /api/gateway/remotes` names, without the rest of each unit (the Desk compares entries only).
 */
export function remoteEntries(directory: Pick<ServiceDirectory, 'list'>): RemoteEntries {
  const entries: RemoteEntries = {};
  for (const m of directory.list()) if (m.url !== null) entries[m.service] = m.url;
  return entries;
}

/** `GET /api/gateway/remotes`: services that ship a UI remote (`url` not null), as DiscoveryUnits. */
export function remotesMap(directory: Pick<ServiceDirectory, 'list'>): RemotesMap {
  const map: RemotesMap = {};
  for (const m of directory.list()) {
    if (m.url === null) continue;
    map[m.service] = { url: m.url, apiUrl: m.apiUrl, metaUrl: m.metaUrl };
    if (m.openapiUrl) map[m.service]!.openapiUrl = m.openapiUrl;
    if (m.integrity) map[m.service]!.integrity = m.integrity;
  }
  return map;
}

/**
 * `GET /api/gateway/discovery/{resource}`: the owner, 400 `invalid_query` for a malformed name, 404
 * `unknown_resource` when no service declares it.
 */
export function lookupOwner(
  directory: Pick<ServiceDirectory, 'ownerOf'>,
  resource: string,
): { owner: string } {
  if (!DOCTYPE_NAME_PATTERN.test(resource)) {
    throw invalid('The resource is not a DocType name of the form <app>.<DocType>.');
  }
  const owner = directory.ownerOf(resource);
  if (!owner) throw new PlatformError('unknown_resource', 'No service owns this resource.', { status: 404 });
  return { owner };
}
