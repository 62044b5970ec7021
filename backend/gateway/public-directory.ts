import type { ServiceManifest } from '../../src/protocol';
import { rewrittenDirectory, type ServiceDirectory } from './service-directory';

/** Options of {@link publicDirectory}. */
export interface PublicDirectoryOptions {
  /** The gateway's public base URL (read on every call: a server bound to port 0 fills it in later). */
  gatewayUrl: () => string;
  /** `desk.mfe_proxy_enabled`: remotes load through the gateway's `/desk/assets/<service>/`. */
  proxyAssets: boolean;
}

/**
 * What browsers see of the bus directory: services publish their own addresses (the gateway forwards to
 * those), but the Desk must send every data, RPC and metadata request to the gateway, where the security
 * chain runs. So `apiUrl` becomes `<gateway>/api`, `metaUrl` `<gateway>/api/meta/<service>`, `openapiUrl`
 * is dropped (the service's own document is internal), so are `encryptionKeys` (browsers read them from
 * the gateway's JWKS), and with the asset proxy on, `url` becomes
 * `<gateway>/desk/assets/<service>/remoteEntry.js`; otherwise the remote loads from the service directly
 * (a script tag: no CORS involved). Revisions are the services' own.
 */
export function publicDirectory(inner: ServiceDirectory, options: PublicDirectoryOptions): ServiceDirectory {
  const rewrite = (m: ServiceManifest): ServiceManifest => {
    const base = options.gatewayUrl().replace(/\/+$/, '');
    const { openapiUrl: _internal, encryptionKeys: _inJwks, ...rest } = m;
    return {
      ...rest,
      url: m.url && options.proxyAssets ? `${base}/desk/assets/${m.service}/remoteEntry.js` : m.url,
      apiUrl: `${base}/api`,
      metaUrl: `${base}/api/meta/${m.service}`,
    };
  };
  return rewrittenDirectory(inner, rewrite);
}
