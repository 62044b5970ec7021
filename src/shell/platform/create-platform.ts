/**
 * Creates the Desk's platform objects once at boot from the validated `__PLATFORM_CONFIG__`: the SDK clients
 * (discovery, security, remote loading, the Refine data provider) and the shell's own stores (catalog, remote
 * views, session). Nothing here renders; React reads these through the hooks in `../hooks`.
 */
import type { DataProvider } from '@refinedev/core';
import { type RemoteViews, VIEWS_MODULE } from '../../contract/remote';
import {
  LOGIN_PATH,
  LOGOUT_PATH,
  type RemotesMap,
  type ServicesMap,
  WHOAMI_PATH,
  type WhoamiResponse,
} from '../../protocol';
import { fetchServiceMetadata, frameworkMDataProvider } from '../../sdk/data';
import { DiscoveryClient } from '../../sdk/discovery';
import { csrfTokenStore, fetchWithCredentials, login as sdkLogin, logout as sdkLogout } from '../../sdk/http';
import type { PlatformConfig } from '../../sdk/platform-config';
import { DevBuildWatcher, RemoteLoader, RemoteOverrides } from '../../sdk/remotes';
import { type SecurityClient, securityClient } from '../../sdk/security';
import { DeskCatalog } from './catalog';
import { withChunkRetry } from './chunk-retry';
import { KeyedStore } from './keyed-store';
import { serviceLabel } from './navigation';
import { NoticeStore } from './notices';
import { rememberServices } from './seen-services';
import { isUnauthorized, SessionStore } from './session';
import { mayHaveSession, rememberSession } from './session-hint';
import { openSessionChannel } from './session-sync';

/** `GET /api/method/whoami` answer; `roles` and `permissions` may be absent. */
type WhoamiAnswer = Partial<WhoamiResponse>;

/** Everything the shell shares, created by {@link createPlatform}. */
export interface DeskPlatform {
  config: PlatformConfig;
  discovery: DiscoveryClient;
  security: SecurityClient;
  remotes: RemoteLoader;
  /** Developer overrides of services' remote entries (`?override=<service>=<url>`). */
  overrides: RemoteOverrides;
  /** The build status of the dev servers overridden remotes come from (a failed build shows over the remote). */
  devBuilds: DevBuildWatcher;
  catalog: DeskCatalog;
  /** Each service's `./views` module (the remote contract), loaded on demand. */
  remoteViews: KeyedStore<RemoteViews>;
  /**
   * Asks discovery for `service`'s current remote and loads its `./views` again: what a screen does once
   * when a chunk of the remote failed to download while it rendered (platform/chunk-retry.ts).
   */
  reloadRemote(service: string): Promise<void>;
  dataProvider: DataProvider;
  session: SessionStore;
  /** Short confirmations after an action ("Customer saved."). */
  notices: NoticeStore;
  /**
   * Asks the server who is signed in and records it (with the session's CSRF token); a 401 means signed out.
   * Called at boot, and when another tab signs in. With `onlyIfSignedInBefore` (the boot), a browser that
   * was not signed in is taken as signed out without asking (platform/session-hint.ts).
   */
  checkSession(options?: { onlyIfSignedInBefore?: boolean }): Promise<void>;
  /** Session login (`POST /api/method/login` with `usr`/`pwd`). */
  login(usr: string, pwd: string): Promise<void>;
  logout(): Promise<void>;
  /** Stops following the other tabs (a page keeps its platform for its lifetime; tests end theirs). */
  dispose(): void;
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
  // Until the server answered `whoami`, the Desk does not know: it shows neither the sign-in screen nor data.
  const session = new SessionStore({ status: 'checking' });
  // Whether to ask at the next boot follows what the Desk knows now.
  session.subscribe(() => {
    const status = session.getSnapshot().status;
    if (status !== 'checking') rememberSession(status === 'signed-in');
  });
  const channel = openSessionChannel();
  const notices = new NoticeStore();
  const catalog = new DeskCatalog({
    gatewayUrl: config.gatewayUrl,
    fetchRemotes: (url) => fetchWithCredentials<RemotesMap>(url),
    fetchServices: (url) => fetchWithCredentials<ServicesMap>(url),
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
  const devBuilds = new DevBuildWatcher();
  // A service whose manifest changed (a DocType added while the Desk is open) gets its metadata again; each
  // in-app navigation asks discovery whether any did (docs/mfe-teams.md#running-it).
  discovery.subscribe(() => {
    for (const service of Object.keys(catalog.getSnapshot().services)) {
      const manifest = discovery.getManifest(service);
      if (manifest) catalog.noteManifest(manifest);
    }
  });
  globalThis.window?.addEventListener('hashchange', () => void discovery.revalidate());
  // Every service this tab sees is remembered, so its pages say "not available right now" while it is down.
  catalog.subscribe(() => {
    const { services, metadata } = catalog.getSnapshot();
    const labels: Record<string, string | undefined> = {};
    for (const service of Object.keys(services)) {
      const meta = metadata[service];
      labels[service] = meta?.status === 'ready' ? serviceLabel(service, meta.value) : undefined;
    }
    rememberServices(labels);
  });
  const loadViews = async (service: string) => {
    const entry = catalog.getSnapshot().services[service];
    const overridden = overrides.list()[service];
    // Before the load: a dev build that fails shows its errors even when the remote cannot run.
    if (overridden) devBuilds.watch(service, overridden);
    if (entry?.url)
      remotes.register(service, overrides.apply(service, { url: entry.url, integrity: entry.integrity }));
    const mod = await remotes.load<{ default?: RemoteViews } & RemoteViews>(service, VIEWS_MODULE);
    return mod.default ?? mod;
  };
  // A chunk that cannot be downloaded (the tab's release no longer served): once more from the release
  // discovery names now (docs/mfe-teams.md#releases).
  const remoteViews = new KeyedStore<RemoteViews>((service) =>
    withChunkRetry(
      service,
      () => loadViews(service),
      () => catalog.retryRemotes(),
    ),
  );
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
  const afterSignIn = () => {
    // Metadata the catalog held back while signed out, or that failed, loads now.
    void catalog.loadRemotes().then(() => catalog.loadPendingMetadata());
  };

  /**
   * Ends the session on the server. A CSRF token that no longer matches the session (it changed under this
   * tab: a sign-in elsewhere) is refused as `csrf_failed`: the current one is asked for (whoami) and the
   * sign-out sent once more; a session already gone (401) leaves nothing to end.
   */
  async function endServerSession(): Promise<void> {
    const url = `${config.gatewayUrl}${LOGOUT_PATH}`;
    try {
      await sdkLogout({ url });
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code !== 'csrf_failed') throw error;
      const answer = await fetchWithCredentials<WhoamiAnswer>(`${config.gatewayUrl}${WHOAMI_PATH}`).catch(
        (failure: unknown) => {
          if (isUnauthorized(failure)) return undefined;
          throw failure;
        },
      );
      const token = answer?.message?.csrf_token;
      if (!token) return;
      csrfTokenStore.set(token);
      await sdkLogout({ url });
    }
  }

  async function checkSession(options: { onlyIfSignedInBefore?: boolean } = {}): Promise<void> {
    // A CSRF token kept by this tab (sessionStorage) also says a session was there.
    if (options.onlyIfSignedInBefore && !mayHaveSession() && !csrfTokenStore.get()) {
      session.signedOut();
      return;
    }
    try {
      const answer = await fetchWithCredentials<WhoamiAnswer>(`${config.gatewayUrl}${WHOAMI_PATH}`);
      const who = answer?.message;
      if (!who?.user) throw new Error('whoami named no user');
      if (who.csrf_token) csrfTokenStore.set(who.csrf_token);
      const wasSignedIn = session.getSnapshot().status === 'signed-in';
      session.signedIn({
        user: who.user,
        fullName: who.full_name || undefined,
        roles: who.roles,
        permissions: who.permissions,
      });
      if (!wasSignedIn) afterSignIn();
    } catch (error) {
      if (isUnauthorized(error)) {
        csrfTokenStore.clear();
        session.signedOut();
        return;
      }
      // The server could not be asked (offline, an older server): a token kept in this tab says a session
      // probably exists; the first 401 corrects it.
      if (session.getSnapshot().status === 'checking') {
        if (csrfTokenStore.get()) session.signedIn();
        else session.signedOut();
      }
    }
  }

  const stopListening = channel.listen((event) => {
    if (event === 'signed-out') {
      csrfTokenStore.clear();
      // Signed out in another tab: this one says the session ended rather than showing a bare sign-in.
      session.signedOut('expired');
    } else if (session.getSnapshot().status !== 'signed-in') {
      void checkSession();
    }
  });

  return {
    config,
    discovery,
    security: securityClient,
    remotes,
    overrides,
    devBuilds,
    catalog,
    remoteViews,
    async reloadRemote(service) {
      await catalog.retryRemotes();
      await remoteViews.retry(service);
    },
    dataProvider,
    session,
    notices,
    checkSession,
    async login(usr, pwd) {
      await sdkLogin(usr, pwd, { url: `${config.gatewayUrl}${LOGIN_PATH}` });
      channel.post('signed-in');
      // The name to show, roles and permissions come with whoami: asked once, before the Desk renders, so
      // no action appears and then vanishes.
      await checkSession();
      if (session.getSnapshot().status !== 'signed-in') {
        // whoami could not be asked; the login itself succeeded, and the first 401 would correct this.
        session.signedIn(usr);
        afterSignIn();
      }
    },
    dispose: () => {
      stopListening();
      devBuilds.dispose();
    },
    async logout() {
      try {
        await endServerSession();
      } catch {
        // This page is signed out all the same, but the session's cookie still works until it expires: say
        // so, rather than let the failure pass unseen.
        notices.show(
          'Signed out here, but the server could not be told: your session there lasts until it expires.',
          'error',
        );
      } finally {
        session.signedOut();
        channel.post('signed-out');
      }
    },
  };
}
