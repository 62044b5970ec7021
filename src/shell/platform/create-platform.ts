/**
 * Creates the Desk's platform objects once at boot from the validated `__PLATFORM_CONFIG__`: the SDK clients
 * (discovery, security, remote loading, the Refine data provider) and the shell's own stores (catalog, remote
 * views, session). Nothing here renders; React reads these through the hooks in `../hooks`.
 */
import type { DataProvider } from '@refinedev/core';
import { LOGIN_PATH, LOGOUT_PATH, type RemotesMap } from '../../protocol';
import { fetchServiceMetadata, frameworkMDataProvider } from '../../sdk/data';
import { DiscoveryClient } from '../../sdk/discovery';
import { csrfTokenStore, fetchWithCredentials, login as sdkLogin, logout as sdkLogout } from '../../sdk/http';
import type { PlatformConfig } from '../../sdk/platform-config';
import { RemoteLoader, RemoteOverrides } from '../../sdk/remotes';
import { type SecurityClient, securityClient } from '../../sdk/security';
import { type RemoteViews, VIEWS_MODULE } from '../remote-contract';
import { DeskCatalog } from './catalog';
import { KeyedStore } from './keyed-store';
import { isUnauthorized, SessionStore } from './session';

/** Everything the shell shares, created by {@link createPlatform}. */
export interface DeskPlatform {
  config: PlatformConfig;
  discovery: DiscoveryClient;
  security: SecurityClient;
  remotes: RemoteLoader;
  /** Developer overrides of services' remote entries (`?override=<service>=<url>`). */
  overrides: RemoteOverrides;
  catalog: DeskCatalog;
  /** Each service's `./views` module (the remote contract), loaded on demand. */
  remoteViews: KeyedStore<RemoteViews>;
  dataProvider: DataProvider;
  session: SessionStore;
  /** Session login (`POST /api/method/login` with `usr`/`pwd`). */
  login(usr: string, pwd: string): Promise<void>;
  logout(): Promise<void>;
}

/** Wraps a data provider so a 401 on any call signs the Desk out (the login screen shows again). */
export function withSessionGuard(provider: DataProvider, session: SessionStore): DataProvider {
  const guarded = { ...provider } as Record<string, unknown>;
  for (const [key, value] of Object.entries(provider)) {
    if (typeof value !== 'function' || key === 'getApiUrl') continue;
    guarded[key] = async (...args: unknown[]) => {
      try {
        return await (value as (...a: unknown[]) => Promise<unknown>).apply(provider, args);
      } catch (error) {
        if (isUnauthorized(error)) session.signedOut('expired');
        throw error;
      }
    };
  }
  return guarded as unknown as DataProvider;
}

/** Creates the platform objects for `config`. */
export function createPlatform(config: PlatformConfig): DeskPlatform {
  const discovery = DiscoveryClient.getInstance({ gatewayUrl: config.gatewayUrl });
  securityClient.configure({ configUrl: config.securityConfigUrl, baseUrl: config.gatewayUrl });
  const remotes = new RemoteLoader();
  const overrides = new RemoteOverrides(
    config.remoteOverrides ?? { allowed: false, origins: [] },
    typeof localStorage === 'undefined' ? undefined : localStorage,
  );
  // A CSRF token kept from a login earlier in this tab means a session probably exists; a 401 corrects it.
  const session = new SessionStore(csrfTokenStore.get() ? { status: 'signed-in' } : { status: 'signed-out' });
  const catalog = new DeskCatalog({
    gatewayUrl: config.gatewayUrl,
    fetchRemotes: (url) => fetchWithCredentials<RemotesMap>(url),
    canLoadMetadata: () => session.getSnapshot().status === 'signed-in',
    fetchMetadata: async (metaUrl) => {
      try {
        return await fetchServiceMetadata(metaUrl);
      } catch (error) {
        // Metadata needs a session: a 401 while the Desk believes it is signed in means the session ended.
        if (isUnauthorized(error)) session.signedOut('expired');
        throw error;
      }
    },
  });
  const remoteViews = new KeyedStore<RemoteViews>(async (service) => {
    const entry = catalog.getSnapshot().services[service];
    if (entry?.url)
      remotes.register(service, overrides.apply(service, { url: entry.url, integrity: entry.integrity }));
    const mod = await remotes.load<{ default?: RemoteViews } & RemoteViews>(service, VIEWS_MODULE);
    return mod.default ?? mod;
  });
  // A remote served by a developer's dev server (an override) announces hot updates: read its new views.
  if (typeof window !== 'undefined') {
    window.addEventListener('desk:remote-updated', (event) => {
      const service = (event as CustomEvent<{ service?: unknown }>).detail?.service;
      if (typeof service !== 'string' || !overrides.list()[service]) return;
      void remotes
        .load<{ default?: RemoteViews } & RemoteViews>(service, VIEWS_MODULE)
        .then((mod) => remoteViews.set(service, mod.default ?? mod))
        .catch(() => {});
    });
  }
  const dataProvider = withSessionGuard(frameworkMDataProvider({ discovery }), session);
  return {
    config,
    discovery,
    security: securityClient,
    remotes,
    overrides,
    catalog,
    remoteViews,
    dataProvider,
    session,
    async login(usr, pwd) {
      await sdkLogin(usr, pwd, { url: `${config.gatewayUrl}${LOGIN_PATH}` });
      session.signedIn(usr);
      // Metadata the catalog held back while signed out, or that failed, loads now.
      void catalog.loadRemotes().then(() => catalog.loadPendingMetadata());
    },
    async logout() {
      try {
        await sdkLogout({ url: `${config.gatewayUrl}${LOGOUT_PATH}` });
      } finally {
        session.signedOut();
      }
    },
  };
}
