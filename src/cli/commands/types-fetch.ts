/**
 * What `m types` reads from a running gateway: the services (the remotes map, plus the owners of every
 * DocType its OpenAPI document names, so data-only services count too), each service's metadata (signed in),
 * the RPC kwargs and response schemas of each service's OpenAPI document, and the `mf-manifest.json` beside
 * each UI remote's entry.
 */
import type { DiscoveryResult, RemotesMap, ServiceMetadata } from '../../protocol';
import { manifestUrlOf, parseRemoteManifest } from '../../sdk/remotes/remote-manifest';
import type { JsonSchema, TypesInput } from './types-generate';
import type { ExposedModules } from './types-remotes';

/** How to authenticate: an API key (`key:secret`) or a user and password for a session. */
export type TypesCredentials = { apiKey: string } | { user: string; password: string };

/** A failure with a stable code and a message for a person. */
export class TypesError extends Error {
  constructor(
    readonly code: 'gateway_unreachable' | 'sign_in_failed' | 'metadata_failed',
    message: string,
  ) {
    super(message);
  }
}

interface OpenApiDocument {
  components?: { schemas?: Record<string, JsonSchema> };
}

const DOCTYPE = /^[a-z][a-z0-9_]*\.[A-Z][A-Za-z0-9]*$/;
const KWARGS = ' kwargs';
const RESPONSE = ' response';

async function json<T>(url: string, init: RequestInit = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw new TypesError('gateway_unreachable', `cannot reach ${url}: ${(error as Error).message}`);
  }
  if (!response.ok) {
    const code = response.status === 401 ? 'sign_in_failed' : 'metadata_failed';
    throw new TypesError(code, `${init.method ?? 'GET'} ${url} answered ${response.status}`);
  }
  return (await response.json()) as T;
}

/** The `Authorization` or `Cookie` header for `credentials` (a session is signed in first). */
async function authHeaders(gateway: string, credentials: TypesCredentials): Promise<Record<string, string>> {
  if ('apiKey' in credentials) return { authorization: `token ${credentials.apiKey}` };
  const response = await fetch(`${gateway}/api/method/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: new URL(gateway).origin },
    body: JSON.stringify({ usr: credentials.user, pwd: credentials.password }),
  }).catch((error: Error) => {
    throw new TypesError('gateway_unreachable', `cannot reach ${gateway}: ${error.message}`);
  });
  if (!response.ok)
    throw new TypesError('sign_in_failed', `signing in as ${credentials.user} answered ${response.status}`);
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  return { cookie };
}

/** Reads everything {@link renderTypes} needs from the gateway at `gateway`. */
export async function fetchTypesInput(gateway: string, credentials: TypesCredentials): Promise<TypesInput> {
  const base = gateway.replace(/\/+$/, '');
  const headers = await authHeaders(base, credentials);
  const remotes = await json<RemotesMap>(`${base}/api/gateway/remotes`);
  const units = new Map(
    Object.entries(remotes).map(([s, u]) => [s, u as { metaUrl: string; openapiUrl?: string }]),
  );
  // Data-only services are not in the remotes map: ask who owns the DocTypes the gateway documents.
  const gatewayDoc = await json<OpenApiDocument>(`${base}/api/openapi.json`).catch(
    () => ({}) as OpenApiDocument,
  );
  const named = Object.keys(gatewayDoc.components?.schemas ?? {}).filter((n) => DOCTYPE.test(n));
  if (named.length > 0) {
    const result = await json<DiscoveryResult>(`${base}/api/gateway/discovery/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resources: named }),
    });
    for (const [service, manifest] of Object.entries(result.services)) {
      if (!units.has(service))
        units.set(service, { metaUrl: manifest.metaUrl, openapiUrl: manifest.openapiUrl });
    }
  }
  const services: ServiceMetadata[] = [];
  const methods: Record<string, JsonSchema> = {};
  const returns: Record<string, JsonSchema> = {};
  const documents = new Map<string, Promise<OpenApiDocument>>();
  for (const [service, unit] of [...units].sort(([a], [b]) => a.localeCompare(b))) {
    services.push(await json<ServiceMetadata>(unit.metaUrl, { headers }));
    const docUrl = unit.openapiUrl ?? `${base}/api/openapi.json`;
    if (!documents.has(docUrl))
      documents.set(
        docUrl,
        json<OpenApiDocument>(docUrl, { headers }).catch(() => ({})),
      );
    const schemas = (await documents.get(docUrl)!).components?.schemas ?? {};
    for (const [name, schema] of Object.entries(schemas)) {
      const suffix = name.endsWith(KWARGS) ? KWARGS : name.endsWith(RESPONSE) ? RESPONSE : undefined;
      const method = suffix ? name.slice(0, -suffix.length) : undefined;
      if (!method?.startsWith(`${service}.`)) continue;
      // The response is the `{ message: <value> }` envelope; the method's return type is the value.
      if (suffix === KWARGS) methods[method] = schema;
      else if (schema.properties?.message) returns[method] = schema.properties.message;
    }
  }
  return { gateway: base, services, methods, returns, remotes: await exposedModules(remotes) };
}

/**
 * What each UI remote exposes, from the `mf-manifest.json` beside its entry (read without credentials, as the
 * Desk reads it). A remote without a readable manifest is left out: it need not publish one.
 */
async function exposedModules(remotes: RemotesMap): Promise<ExposedModules> {
  const found: ExposedModules = {};
  for (const [service, unit] of Object.entries(remotes)) {
    const manifestUrl = unit.url ? manifestUrlOf(unit.url) : undefined;
    if (!manifestUrl) continue;
    const manifest = await json<unknown>(manifestUrl)
      .then(parseRemoteManifest)
      .catch(() => undefined);
    if (manifest) found[service] = { manifestUrl, exposes: manifest.exposes };
  }
  return found;
}
