/**
 * The Desk's home: a card per list, then the dashboard widgets each app's remote contributes. The lists come
 * first because they are known as soon as the metadata is: the widgets arrive later, one app after another,
 * each at a height of its own, and below the lists their arrival moves nothing the user already sees.
 */
import { useDeferredValue } from 'react';
import { useCatalog } from '../hooks/use-catalog';
import { useDocumentTitle } from '../hooks/use-document-title';
import { usePermissions } from '../hooks/use-permissions';
import { usePlatform } from '../hooks/use-platform';
import { useRemoteViews } from '../hooks/use-remote-views';
import { portalContainerOf } from '../isolation/portal-container';
import { navEntries, serviceLabel } from '../platform/navigation';
import { showsService } from '../platform/screen-rights';
import { formatRoute } from '../routing/route';
import { adoptStyles } from '../styles/adopt-styles';
import homeCss from '../styles/home.css';
import { useDeveloperDetails } from '../words/developer-details';
import { DeveloperDetails } from './DeveloperDetails';
import { RemoteBoundary } from './RemoteBoundary';
import { RemoteUnavailable } from './RemoteUnavailable';

adoptStyles('home', homeCss);

/** The home screen. */
export function Home(): React.JSX.Element {
  const snapshot = useCatalog();
  const { config } = usePlatform();
  const permissions = usePermissions();
  const developer = useDeveloperDetails();
  useDocumentTitle('Home');
  const readable = (docType: string) => permissions.can(docType, 'read');
  // A service shows its widgets only to users who may read one of its DocTypes (docs/permissions.md).
  const services = Object.values(snapshot.services)
    .sort((a, b) => a.service.localeCompare(b.service))
    .filter((s) => {
      const meta = snapshot.metadata[s.service];
      return showsService(
        permissions.can,
        meta?.status === 'ready' ? meta.value.doctypes.map((d) => d.name) : undefined,
      );
    });
  return (
    <div className="desk-page">
      <div className="desk-page__header">
        <div>
          <h1 className="desk-page__title">Home</h1>
          {developer ? (
            <p className="desk-page__service">
              {config.mode === 'macroservice' ? 'Macroservice' : 'Monolith'} · version {config.version}
            </p>
          ) : null}
        </div>
      </div>
      <h2 className="desk-section-title">Lists</h2>
      <ul className="desk-cards">
        {services.flatMap((s) => {
          const meta = snapshot.metadata[s.service];
          if (meta?.status !== 'ready') return [];
          const app = serviceLabel(s.service, meta.value);
          return navEntries(meta.value)
            .filter((entry) => readable(entry.docType))
            .map((entry) => (
              <li key={entry.docType} className="desk-card">
                <a href={formatRoute({ kind: 'list', docType: entry.docType })}>
                  <span className="desk-card__title">{entry.label}</span>
                  <span className="desk-card__meta">{developer ? entry.docType : app}</span>
                </a>
              </li>
            ));
        })}
      </ul>
      <div className="desk-widgets">
        {services
          .filter((s) => s.url)
          .map((s) => (
            <ServiceWidgets key={s.service} service={s.service} apiUrl={s.apiUrl} />
          ))}
      </div>
      {/* Remote entries, integrity and overrides are for the people who build the platform and its apps. */}
      {developer ? <DeveloperDetails /> : null}
    </div>
  );
}

function ServiceWidgets({ service, apiUrl }: { service: string; apiUrl: string }): React.JSX.Element | null {
  const { remoteViews, reloadRemote } = usePlatform();
  const permissions = usePermissions();
  // Deferred: the first render of an app's widgets (and of Refine's context around them, loaded with the
  // first one) runs in the background, in slices between which the page keeps answering input, instead of
  // one long task; until it is done the card says it is loading.
  const views = useDeferredValue(useRemoteViews(service, true));
  if (!views || views.status === 'loading') {
    return (
      // Not a named region: several services loading at once would be several regions of one name.
      <section className="desk-widget" aria-busy="true">
        <p role="status">Loading…</p>
      </section>
    );
  }
  if (views.status === 'error') {
    return (
      <section className="desk-widget desk-widget--error">
        <RemoteUnavailable
          service={service}
          error={views.error}
          onRetry={() => remoteViews.retry(service).catch(() => {})}
        >
          Its dashboard cards are missing for now.
        </RemoteUnavailable>
      </section>
    );
  }
  return (
    <>
      {(views.value.widgets ?? []).map((widget) => {
        const Widget = widget.component;
        return (
          <section key={widget.id} className="desk-widget" aria-labelledby={`widget-${service}-${widget.id}`}>
            <h2 id={`widget-${service}-${widget.id}`} className="desk-widget__title">
              {widget.title}
            </h2>
            <RemoteBoundary
              service={service}
              what={`The ${widget.title} card`}
              reloadRemote={() => reloadRemote(service)}
            >
              <Widget
                service={service}
                apiUrl={apiUrl}
                can={(operation, doctype) => permissions.can(doctype, operation)}
                portalContainer={portalContainerOf(service)}
              />
            </RemoteBoundary>
          </section>
        );
      })}
    </>
  );
}
