/** The sidebar: every service (app) with its DocTypes, each service loading and failing on its own. */
import { useCatalog } from '../hooks/use-catalog';
import { usePermissions } from '../hooks/use-permissions';
import { usePlatform } from '../hooks/use-platform';
import { type DeskRoute, formatRoute } from '../routing/route';
import { describeError } from './states';

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
    .sort()
    .filter((service) => {
      const meta = snapshot.metadata[service];
      if (!permissions.ready || meta?.status !== 'ready') return true;
      return meta.value.doctypes.some((d) => permissions.can(d.name, 'read'));
    });
  const current = route.kind === 'home' || route.kind === 'users' ? undefined : route.docType;
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
      {snapshot.remotes.status === 'error' ? (
        <div className="desk-sidebar__error" role="alert">
          <p>The list of apps could not be loaded.</p>
          <button
            type="button"
            className="desk-button desk-button--small"
            onClick={() => catalog.retryRemotes()}
          >
            Retry
          </button>
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
        return (
          <section key={service} className="desk-sidebar__app" aria-labelledby={headingId}>
            <h2 id={headingId} className="desk-sidebar__app-name">
              {service}
            </h2>
            {!meta || meta.status === 'loading' ? (
              <p className="desk-sidebar__loading" role="status">
                Loading…
              </p>
            ) : meta.status === 'error' ? (
              <div className="desk-sidebar__error" role="alert">
                <p>
                  Unavailable <code>{describeError(meta.error).code ?? 'error'}</code>
                </p>
                <button
                  type="button"
                  className="desk-button desk-button--small"
                  onClick={() => catalog.retryMetadata(service).catch(() => {})}
                >
                  Retry
                </button>
              </div>
            ) : (
              <ul>
                {meta.value.doctypes
                  .filter((d) => !permissions.ready || permissions.can(d.name, 'read'))
                  .map((d) => (
                    <li key={d.name}>
                      <a
                        href={formatRoute({ kind: 'list', docType: d.name })}
                        className={current === d.name ? 'is-active' : undefined}
                        aria-current={current === d.name ? 'page' : undefined}
                        onClick={onNavigate}
                      >
                        {d.label}
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
