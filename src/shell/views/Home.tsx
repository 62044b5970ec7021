/** The Desk's home: a card per DocType and the dashboard widgets each service's remote contributes. */
import { useCatalog } from '../hooks/use-catalog';
import { usePlatform } from '../hooks/use-platform';
import { useRemoteViews } from '../hooks/use-remote-views';
import { formatRoute } from '../routing/route';
import { DeveloperDetails } from './DeveloperDetails';
import { RemoteBoundary } from './RemoteBoundary';
import { RemoteUnavailable } from './RemoteUnavailable';

/** The home screen. */
export function Home(): React.JSX.Element {
  const snapshot = useCatalog();
  const { config } = usePlatform();
  const services = Object.values(snapshot.services).sort((a, b) => a.service.localeCompare(b.service));
  return (
    <div className="desk-page">
      <div className="desk-page__header">
        <div>
          <h1 className="desk-page__title">Desk</h1>
          <p className="desk-page__service">
            {config.mode === 'macroservice' ? 'Macroservice' : 'Monolith'} · version {config.version}
          </p>
        </div>
      </div>
      <div className="desk-widgets">
        {services
          .filter((s) => s.url)
          .map((s) => (
            <ServiceWidgets key={s.service} service={s.service} apiUrl={s.apiUrl} />
          ))}
      </div>
      <h2 className="desk-section-title">DocTypes</h2>
      <ul className="desk-cards">
        {services.flatMap((s) => {
          const meta = snapshot.metadata[s.service];
          if (meta?.status !== 'ready') return [];
          return meta.value.doctypes.map((d) => (
            <li key={d.name} className="desk-card">
              <a href={formatRoute({ kind: 'list', docType: d.name })}>
                <span className="desk-card__title">{d.label}</span>
                <span className="desk-card__meta">{d.name}</span>
              </a>
            </li>
          ));
        })}
      </ul>
      <DeveloperDetails />
    </div>
  );
}

function ServiceWidgets({ service, apiUrl }: { service: string; apiUrl: string }): React.JSX.Element | null {
  const { remoteViews } = usePlatform();
  const views = useRemoteViews(service, true);
  if (!views || views.status === 'loading') {
    return (
      <section className="desk-widget" aria-busy="true" aria-label={`${service} widgets`}>
        <p role="status">Loading {service}…</p>
      </section>
    );
  }
  if (views.status === 'error') {
    return (
      <section className="desk-widget desk-widget--error" aria-label={`${service} widgets`}>
        <RemoteUnavailable
          service={service}
          error={views.error}
          onRetry={() => remoteViews.retry(service).catch(() => {})}
        />
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
            <RemoteBoundary service={service} what={`The ${widget.title} widget`}>
              <Widget service={service} apiUrl={apiUrl} />
            </RemoteBoundary>
          </section>
        );
      })}
    </>
  );
}
