/**
 * The sidebar: every installed app with its DocTypes, labelled by the app's own menu entries, each app
 * loading and failing on its own.
 */
import { mayReadAudit } from '../audit/audit-access';
import { useCatalog } from '../hooks/use-catalog';
import { usePermissions } from '../hooks/use-permissions';
import { usePlatform } from '../hooks/use-platform';
import { navEntries, serviceLabel } from '../platform/navigation';
import { type DeskRoute, formatRoute } from '../routing/route';
import { failureWords } from '../words/failure';
import { DeveloperDetails } from './states';

/** Props of {@link Sidebar}. */
export interface SidebarProps {
  route: DeskRoute;
  /** Called after a link is followed (closes the menu on small screens). */
  onNavigate?(): void;
}

/** The apps and DocTypes navigation. */
export function Sidebar({ route, onNavigate }: SidebarProps): React.JSX.Element {
  const { catalog } = usePlatform();
  const snapshot = useCatalog();
  const permissions = usePermissions();
  // A service whose DocTypes the user may not read is left out once whoami answered (docs/permissions.md).
  const services = Object.keys(snapshot.services)
    .sort((a, b) =>
      serviceLabel(a, readyMeta(snapshot, a)).localeCompare(serviceLabel(b, readyMeta(snapshot, b))),
    )
    .filter((service) => {
      const meta = snapshot.metadata[service];
      if (!permissions.ready || meta?.status !== 'ready') return true;
      return meta.value.doctypes.some((d) => permissions.can(d.name, 'read'));
    });
  const current = 'docType' in route ? route.docType : undefined;
  return (
    <nav className="desk-sidebar" aria-label="Apps">
      <a
        className={`desk-sidebar__home${route.kind === 'home' ? ' is-active' : ''}`}
        href={formatRoute({ kind: 'home' })}
        onClick={onNavigate}
        aria-current={route.kind === 'home' ? 'page' : undefined}
      >
        Home
      </a>
      {permissions.isSystemManager ? (
        <a
          className={`desk-sidebar__home${route.kind === 'users' ? ' is-active' : ''}`}
          href={formatRoute({ kind: 'users' })}
          onClick={onNavigate}
          aria-current={route.kind === 'users' ? 'page' : undefined}
        >
          Users
        </a>
      ) : null}
      {/* Releases are kept in both modes (docs/mfe-teams.md#releases). */}
      {permissions.isSystemManager ? (
        <a
          className={`desk-sidebar__home${route.kind === 'releases' ? ' is-active' : ''}`}
          href={formatRoute({ kind: 'releases' })}
          onClick={onNavigate}
          aria-current={route.kind === 'releases' ? 'page' : undefined}
        >
          Releases
        </a>
      ) : null}
      {mayReadAudit(permissions.isSystemManager) ? (
        <a
          className={`desk-sidebar__home${route.kind === 'audit' ? ' is-active' : ''}`}
          href={formatRoute({ kind: 'audit' })}
          onClick={onNavigate}
          aria-current={route.kind === 'audit' ? 'page' : undefined}
        >
          Audit
        </a>
      ) : null}
      {snapshot.remotes.status === 'error' ? (
        <div className="desk-sidebar__error" role="alert">
          <p>Some apps could not be listed.</p>
          {failureWords(snapshot.remotes.error).retryable ? (
            <button
              type="button"
              className="desk-button desk-button--small"
              onClick={() => catalog.retryRemotes()}
            >
              Try again
            </button>
          ) : null}
        </div>
      ) : null}
      {services.length === 0 && snapshot.remotes.status !== 'error' ? (
        <p className="desk-sidebar__loading" role="status">
          Loading apps…
        </p>
      ) : null}
      {services.map((service) => {
        const meta = snapshot.metadata[service];
        const headingId = `desk-app-${service}`;
        const label = serviceLabel(service, meta?.status === 'ready' ? meta.value : undefined);
        return (
          <section key={service} className="desk-sidebar__app" aria-labelledby={headingId}>
            <h2 id={headingId} className="desk-sidebar__app-name">
              {label}
            </h2>
            {!meta || meta.status === 'loading' ? (
              <p className="desk-sidebar__loading" role="status">
                Loading…
              </p>
            ) : meta.status === 'error' ? (
              <SidebarError
                error={meta.error}
                onRetry={() => catalog.retryMetadata(service).catch(() => {})}
              />
            ) : (
              <ul>
                {navEntries(meta.value)
                  .filter((entry) => !permissions.ready || permissions.can(entry.docType, 'read'))
                  .map((entry) => (
                    <li key={entry.docType}>
                      <a
                        href={formatRoute({ kind: 'list', docType: entry.docType })}
                        className={current === entry.docType ? 'is-active' : undefined}
                        aria-current={current === entry.docType ? 'page' : undefined}
                        onClick={onNavigate}
                      >
                        {entry.label}
                      </a>
                    </li>
                  ))}
              </ul>
            )}
          </section>
        );
      })}
    </nav>
  );
}

function readyMeta(snapshot: ReturnType<typeof useCatalog>, service: string) {
  const state = snapshot.metadata[service];
  return state?.status === 'ready' ? state.value : undefined;
}

function SidebarError({ error, onRetry }: { error: unknown; onRetry(): void }): React.JSX.Element {
  const words = failureWords(error);
  return (
    <div className="desk-sidebar__error" role="alert">
      <p>This app is not available right now.</p>
      <DeveloperDetails words={words} />
      {words.retryable ? (
        <button type="button" className="desk-button desk-button--small" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}
