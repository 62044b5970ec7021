/**
 * The Releases page (`#/releases`, docs/operators.md#the-releases-page), for System Managers, in MONOLITH and
 * MACROSERVICE alike (where the gateways keep the records): per installed app with releases, the live release, the canary, the pins, the kept releases and the history, with
 * Roll back and Promote (each confirmed; a move the contract check refuses can be forced in a second
 * confirmation).
 */
import { useCallback, useEffect, useState } from 'react';
import type { ReleaseOverview } from '../../protocol';
import { useCatalog } from '../hooks/use-catalog';
import { useDocumentTitle } from '../hooks/use-document-title';
import { usePermissions } from '../hooks/use-permissions';
import { usePlatform } from '../hooks/use-platform';
import { serviceLabel } from '../platform/navigation';
import { releasesApi } from '../releases/releases-api';
import { ServiceReleases } from './ServiceReleases';
import { Empty, ErrorState, Loading } from './states';

/** The Releases page; a user who is not a System Manager sees a refusal instead. */
export function ReleasesPage(): React.JSX.Element {
  const { config } = usePlatform();
  const permissions = usePermissions();
  const catalog = useCatalog();
  const [services, setServices] = useState<ReleaseOverview[]>();
  const [error, setError] = useState<unknown>();
  useDocumentTitle('Releases');
  const reload = useCallback(() => {
    releasesApi(config.gatewayUrl)
      .overview()
      .then((list) => {
        setServices(list);
        setError(undefined);
      })
      .catch(setError);
  }, [config.gatewayUrl]);
  useEffect(() => {
    if (permissions.isSystemManager) reload();
  }, [permissions.isSystemManager, reload]);

  if (!permissions.ready) return <Loading />;
  if (!permissions.isSystemManager) {
    return (
      <Empty title="Only a System Manager may manage releases.">
        <a href="#/">Back to the home page</a>
      </Empty>
    );
  }
  const labelOf = (service: string) => {
    const meta = catalog.metadata[service];
    return serviceLabel(service, meta?.status === 'ready' ? meta.value : undefined);
  };
  return (
    <section className="desk-releases" aria-labelledby="desk-releases-title">
      <header className="desk-page__header">
        <h1 id="desk-releases-title" className="desk-page__title">
          Releases
        </h1>
      </header>
      {error ? (
        <ErrorState title="The releases could not be loaded." error={error} onRetry={reload} />
      ) : !services ? (
        <Loading />
      ) : services.length === 0 ? (
        <Empty title="No app has a release yet.">
          <p>
            Publish one with <code>m release publish</code>.
          </p>
        </Empty>
      ) : (
        services.map((s) => (
          <ServiceReleases key={s.service} service={s.service} label={labelOf(s.service)} />
        ))
      )}
    </section>
  );
}
