import {
  DISCOVERY_QUERY_PATH,
  type DiscoveryQuery,
  type DiscoveryResult,
  type DocTypeSchema,
  SECURITY_CONFIG_PATH,
  type SecurityConfig,
  type ServiceMetadata,
} from '../../protocol';
import type { LoadPlan } from '../config/plan';
import { type HttpClient, jsonOf } from '../engine/http-client';
import type { HttpResponse } from '../engine/http-message';
import { errorCode, harnessError } from '../errors';
import { rpcService } from '../scenarios/rpc';
import type { TargetInfo } from './target-info';

/** Sends a GET with the plan's default credentials (for a `metaUrl` that needs a principal). */
export type AuthedGet = (url: string, security: SecurityConfig | null) => Promise<HttpResponse>;

/**
 * Learns what a run needs from the target, once, before any load: the security config
 * (`GET /api/v1/security/config`; 404 means a target without payload encryption), then one batched
 * `POST /api/gateway/discovery/query` resolving every DocType owner and RPC service manifest, then each
 * owner's `metaUrl` for the DocType schemas. A connection failure is `target_unreachable`; a DocType the
 * target does not know is `target_mismatch`.
 */
export async function discoverTarget(
  plan: LoadPlan,
  http: HttpClient,
  authedGet: AuthedGet,
): Promise<TargetInfo> {
  const base = plan.targetUrl;
  const get = (url: string) => call(http, { method: 'GET', url, headers: { accept: 'application/json' } });
  const secRes = await get(`${base}${SECURITY_CONFIG_PATH}`);
  const security = secRes.status === 200 ? asSecurityConfig(jsonOf(secRes)) : null;

  // Flow steps are requests like the scenarios': their DocTypes and services are discovered too.
  const requests = plan.scenarios.flatMap(
    (s): Array<{ type: string; doctype?: string; method?: string }> =>
      s.type === 'flow' ? s.steps.map((st) => st.request) : [s],
  );
  const doctypes = [...new Set(requests.flatMap((s) => (s.type === 'doctype' ? [s.doctype!] : [])))];
  const rpcServices = [
    ...new Set(requests.flatMap((s) => (s.type === 'rpc' ? [rpcService(s.method!)] : []))),
  ];
  const info: TargetInfo = { security, doctypes: {}, services: {} };
  if (doctypes.length === 0 && rpcServices.length === 0) return info;

  const query: DiscoveryQuery = {
    resources: doctypes,
    services: Object.fromEntries(rpcServices.map((s) => [s, 0])),
  };
  const dRes = await call(http, {
    method: 'POST',
    url: `${base}${DISCOVERY_QUERY_PATH}`,
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify(query),
  });
  const result = dRes.status === 200 ? (jsonOf(dRes) as DiscoveryResult | undefined) : undefined;
  if (!result?.resources) {
    if (doctypes.length > 0) {
      throw harnessError(
        'target_mismatch',
        `discovery query answered ${dRes.status}; DocType scenarios need it`,
      );
    }
    return info;
  }
  for (const svc of rpcServices) {
    const m = result.services?.[svc];
    if (m?.apiUrl) info.services[svc] = new URL(m.apiUrl, `${base}/`).href.replace(/\/+$/, '');
  }
  const metaCache = new Map<string, Promise<ServiceMetadata>>();
  for (const dt of doctypes) {
    const owner = result.resources[dt];
    const manifest = owner ? result.services?.[owner] : undefined;
    if (!owner || !manifest)
      throw harnessError('target_mismatch', `the target does not know the DocType ${dt}`);
    const metaUrl = new URL(manifest.metaUrl, `${base}/`).href;
    let meta = metaCache.get(metaUrl);
    if (!meta) {
      meta = fetchMeta(metaUrl, get, (url) => authedGet(url, security));
      metaCache.set(metaUrl, meta);
    }
    const schema = (await meta).doctypes.find((d: DocTypeSchema) => d.name === dt);
    if (!schema) throw harnessError('target_mismatch', `${owner}'s metadata has no DocType ${dt}`);
    info.doctypes[dt] = {
      owner,
      apiUrl: new URL(manifest.apiUrl, `${base}/`).href.replace(/\/+$/, ''),
      schema,
    };
  }
  return info;
}

const MODES = new Set(['disabled', 'selective', 'metadata', 'strict']);

/** The body as a security config, or null when it is not one (a target that answers 200 to anything). */
function asSecurityConfig(body: unknown): SecurityConfig | null {
  const mode = (body as { mode?: unknown } | undefined)?.mode;
  return typeof mode === 'string' && MODES.has(mode) ? (body as SecurityConfig) : null;
}

async function fetchMeta(
  url: string,
  get: (url: string) => Promise<HttpResponse>,
  authedGet: (url: string) => Promise<HttpResponse>,
): Promise<ServiceMetadata> {
  let res = await get(url);
  if (res.status === 401 || res.status === 403) res = await authedGet(url);
  const meta = jsonOf(res) as ServiceMetadata | undefined;
  if (res.status !== 200 || !Array.isArray(meta?.doctypes)) {
    throw harnessError('target_mismatch', `metadata at ${url} answered ${res.status}`);
  }
  return meta;
}

async function call(http: HttpClient, req: Parameters<HttpClient['request']>[0]): Promise<HttpResponse> {
  try {
    return await http.request(req);
  } catch (err) {
    throw harnessError('target_unreachable', `${req.method} ${req.url} failed: ${errorCode(err)}`, err);
  }
}
