/**
 * The Desk's root: Refine (with the SDK's data provider and the shell's QueryClient), the session gate, and
 * the layout (header, sidebar, main) around the current route.
 */
import { Refine } from '@refinedev/core';
import { QueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { usePlatform } from '../hooks/use-platform';
import { useRoute } from '../hooks/use-route';
import { useSession } from '../hooks/use-session';
import { isUnauthorized } from '../platform/session';
import { formatRoute } from '../routing/route';
import { DocTypePage } from './DocTypePage';
import { Home } from './Home';
import { LoginScreen } from './LoginScreen';
import { OverrideBanner } from './OverrideBanner';
import { Sidebar } from './Sidebar';

/** Query defaults: client errors (4xx) are final, anything else is retried once. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: (count, error) => {
          const status =
            (error as { status?: number; statusCode?: number }).status ??
            (error as { statusCode?: number }).statusCode;
          return !isUnauthorized(error) && !(status && status < 500) && count < 1;
        },
        refetchOnWindowFocus: false,
        staleTime: 5_000,
      },
    },
  });
}

/** The whole Desk UI. */
export function App({ queryClient }: { queryClient: QueryClient }): React.JSX.Element {
  const platform = usePlatform();
  const session = useSession();
  return (
    <Refine
      dataProvider={platform.dataProvider}
      options={{
        reactQuery: { clientConfig: queryClient },
        disableTelemetry: true,
        warnWhenUnsavedChanges: false,
      }}
    >
      {session.status === 'signed-out' ? <LoginScreen expired={session.reason === 'expired'} /> : <Layout />}
    </Refine>
  );
}

function Layout(): React.JSX.Element {
  const platform = usePlatform();
  const { route, navigate } = useRoute();
  const [menuOpen, setMenuOpen] = useState(false);
  const mainRef = useRef<HTMLElement>(null);
  const session = useSession();
  const routeKey = route.kind === 'home' ? 'home' : route.docType;

  // Move focus to the new screen on navigation, as a page load would (WCAG 2.4.3).
  useEffect(() => {
    void routeKey;
    mainRef.current?.focus({ preventScroll: true });
  }, [routeKey]);

  return (
    <div className={`desk${menuOpen ? ' desk--menu-open' : ''}`}>
      <button type="button" className="desk-skip-link" onClick={() => mainRef.current?.focus()}>
        Skip to content
      </button>
      <header className="desk-header">
        <button
          type="button"
          className="desk-header__menu"
          aria-expanded={menuOpen}
          aria-controls="desk-sidebar"
          onClick={() => setMenuOpen((o) => !o)}
        >
          <span className="desk-visually-hidden">Menu</span>
          <span aria-hidden="true">☰</span>
        </button>
        <a className="desk-header__brand" href={formatRoute({ kind: 'home' })}>
          Desk
        </a>
        <span className="desk-header__mode">{platform.config.mode}</span>
        {__DESK_DEV__ ? (
          <span className="desk-header__mode desk-header__mode--dev">offline · mocked API</span>
        ) : null}
        <span className="desk-header__spacer" />
        {session.status === 'signed-in' && session.user ? (
          <span className="desk-header__user">{session.user}</span>
        ) : null}
        <button
          type="button"
          className="desk-button desk-button--small"
          onClick={() => void platform.logout()}
        >
          Sign out
        </button>
      </header>
      <div id="desk-sidebar" className="desk-sidebar-wrap">
        <Sidebar route={route} onNavigate={() => setMenuOpen(false)} />
      </div>
      <main id="desk-main" ref={mainRef} tabIndex={-1} className="desk-main">
        <OverrideBanner />
        {route.kind === 'home' ? (
          <Home />
        ) : (
          <DocTypePage key={route.docType} route={route} navigate={navigate} />
        )}
      </main>
    </div>
  );
}
