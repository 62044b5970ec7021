/**
 * The Desk's root: the shell's QueryClient, the session gate, and the layout (header with the search box,
 * sidebar, main, notices) around the current route. Each screen's code loads with its route; a DocType list
 * is in the main chunk, since it is the screen most visits start on (docs/performance.md#the-first-screen).
 * Refine's context is given to remote components only (`RemoteScope`), where a remote's hooks need it.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import {
  lazy,
  Suspense,
  useCallback,
  useDeferredValue,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
} from 'react';
import { usePermissions } from '../hooks/use-permissions';
import { usePlatform } from '../hooks/use-platform';
import { useRoute } from '../hooks/use-route';
import { useSession } from '../hooks/use-session';
import { useThemeChoice } from '../hooks/use-theme';
import { offlineBadgeText } from '../platform/offline-data';
import { mayShowDeveloperDetails } from '../platform/screen-rights';
import { isUnauthorized } from '../platform/session';
import { setThemeChoice, type ThemeChoice } from '../platform/theme';
import { formatRoute } from '../routing/route';
import {
  setDeveloperDetails,
  setDeveloperDetailsAllowed,
  useDeveloperDetails,
} from '../words/developer-details';
import { DocTypePage } from './DocTypePage';
import { Notices } from './Notices';
import { OverrideBanner } from './OverrideBanner';
import { PaletteOpening, type PaletteStart } from './PaletteOpening';
import { Sidebar } from './Sidebar';
import { Loading } from './states';

// Watches the live releases once the first screen is up; its code is not part of that screen
// (docs/performance.md#the-budget).
// Asked only when someone leaves a changed form.
const LeaveDialog = lazy(() =>
  import(/* webpackChunkName: "route-leave" */ './LeaveDialog').then((m) => ({ default: m.LeaveDialog })),
);
const ReleaseOffer = lazy(() =>
  import(/* webpackChunkName: "route-release-offer" */ './ReleaseOffer').then((m) => ({
    default: m.ReleaseOffer,
  })),
);
const Home = lazy(() =>
  import(/* webpackChunkName: "route-home" */ './Home').then((m) => ({ default: m.Home })),
);
const UsersPage = lazy(() =>
  import(/* webpackChunkName: "route-users" */ './UsersPage').then((m) => ({ default: m.UsersPage })),
);
const ReleasesPage = lazy(() =>
  import(/* webpackChunkName: "route-releases" */ './ReleasesPage').then((m) => ({
    default: m.ReleasesPage,
  })),
);
const AuditPage = lazy(() =>
  import(/* webpackChunkName: "route-audit" */ './AuditPage').then((m) => ({ default: m.AuditPage })),
);
const LoginScreen = lazy(() =>
  import(/* webpackChunkName: "route-login" */ './LoginScreen').then((m) => ({ default: m.LoginScreen })),
);
const CommandPalette = lazy(() =>
  import(/* webpackChunkName: "search-palette" */ './CommandPalette').then((m) => ({
    default: m.CommandPalette,
  })),
);

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
  // Deferred: the session's answer turns the opening screen into the whole Desk (header, sidebar, the first
  // page), a render React then does in slices between which the page stays responsive, not in one long task.
  const session = useDeferredValue(useSession());
  const opening = (
    <main className="desk-login">
      <Loading label="Opening the Desk…" />
    </main>
  );
  return (
    <QueryClientProvider client={queryClient}>
      {session.status === 'checking' ? (
        opening
      ) : session.status === 'signed-out' ? (
        <Suspense fallback={opening}>
          <LoginScreen expired={session.reason === 'expired'} />
        </Suspense>
      ) : (
        <Layout />
      )}
    </QueryClientProvider>
  );
}

/** True for the shortcut that opens the search: Ctrl+K, or ⌘K on a Mac. */
function isSearchShortcut(event: KeyboardEvent): boolean {
  return (event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'k';
}

/** The header's colour theme choice: the system's setting, light or dark. */
function ThemeSelect(): React.JSX.Element {
  const choice = useThemeChoice();
  return (
    <select
      className="desk-header__theme"
      aria-label="Colour theme"
      value={choice}
      onChange={(e) => setThemeChoice(e.target.value as ThemeChoice)}
    >
      <option value="system">System theme</option>
      <option value="light">Light</option>
      <option value="dark">Dark</option>
    </select>
  );
}

function Layout(): React.JSX.Element {
  const platform = usePlatform();
  const { route, navigate } = useRoute();
  const [menuOpen, setMenuOpen] = useState(false);
  const [searching, setSearching] = useState(false);
  // What the palette starts from: the element to give focus back to, and what was typed while its code
  // loaded (PaletteOpening).
  const opening = useRef<PaletteStart>({ text: '', returnTo: null });
  const openSearch = useCallback(() => {
    opening.current = { text: '', returnTo: document.activeElement as HTMLElement | null };
    setSearching(true);
  }, []);
  const mainRef = useRef<HTMLElement>(null);
  const session = useSession();
  const permissions = usePermissions();
  const mayDevelop = permissions.ready && mayShowDeveloperDetails(permissions.roles);
  // Before the first paint, so no screen shows details this user may not see.
  useLayoutEffect(() => setDeveloperDetailsAllowed(mayDevelop), [mayDevelop]);
  const developer = useDeveloperDetails();
  const routeKey = 'docType' in route ? `${route.kind}:${route.docType}` : route.kind;
  const shownName = session.status === 'signed-in' ? (session.fullName ?? session.user) : undefined;

  // Move focus to the new screen on navigation, as a page load would (WCAG 2.4.3).
  useEffect(() => {
    void routeKey;
    mainRef.current?.focus({ preventScroll: true });
  }, [routeKey]);

  const searchingRef = useRef(searching);
  searchingRef.current = searching;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!isSearchShortcut(event)) return;
      event.preventDefault();
      // Open once: a second Ctrl+K while open would forget where focus came from.
      if (!searchingRef.current) openSearch();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [openSearch]);

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
        {developer ? <span className="desk-header__mode">{platform.config.mode}</span> : null}
        {__DESK_DEV__ ? (
          <span className="desk-header__mode desk-header__mode--dev">{offlineBadgeText()}</span>
        ) : null}
        <button
          type="button"
          className="desk-header__search"
          aria-haspopup="dialog"
          aria-keyshortcuts="Control+K Meta+K"
          onClick={openSearch}
        >
          Search or jump to…
          <kbd className="desk-header__kbd">Ctrl K</kbd>
        </button>
        <span className="desk-header__spacer" />
        {shownName ? <span className="desk-header__user">{shownName}</span> : null}
        <ThemeSelect />
        {mayDevelop ? (
          <button
            type="button"
            className="desk-button desk-button--small desk-header__toggle"
            aria-pressed={developer}
            title="Show deployment, service and error details for people who build the platform"
            onClick={() => setDeveloperDetails(!developer)}
          >
            Developer details
          </button>
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
        <Suspense fallback={null}>
          <ReleaseOffer />
        </Suspense>
        <Suspense fallback={<Loading label="Loading…" />}>
          {route.kind === 'home' ? (
            <Home />
          ) : route.kind === 'users' ? (
            <UsersPage />
          ) : route.kind === 'releases' ? (
            <ReleasesPage />
          ) : route.kind === 'audit' ? (
            <AuditPage route={route} navigate={navigate} />
          ) : (
            <DocTypePage key={route.docType} route={route} navigate={navigate} />
          )}
        </Suspense>
      </main>
      <Notices />
      <Suspense fallback={null}>
        <LeaveDialog />
      </Suspense>
      {searching ? (
        <Suspense fallback={<PaletteOpening start={opening.current} onClose={() => setSearching(false)} />}>
          <CommandPalette start={opening.current} onClose={() => setSearching(false)} navigate={navigate} />
        </Suspense>
      ) : null}
    </div>
  );
}
