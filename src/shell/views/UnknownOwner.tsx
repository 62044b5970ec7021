/**
 * The page of a DocType no service owns right now. Down is not gone: when the service its name points at
 * was seen in this tab, or still has a kept release (asked for System Managers), the page says
 * "<App> is not available right now" with Try again; only a service never seen gets "No app installed here
 * provides this page".
 */
import { useEffect, useState } from 'react';
import { useCatalog } from '../hooks/use-catalog';
import { usePermissions } from '../hooks/use-permissions';
import { usePlatform } from '../hooks/use-platform';
import { serviceLabel } from '../platform/navigation';
import { seenServices, serviceOfDocType } from '../platform/seen-services';
import { releasesApi } from '../releases/releases-api';
import { DeveloperDetails, Empty, ErrorState, Loading } from './states';

/** Props of {@link UnknownOwner}. */
export interface UnknownOwnerProps {
  docType: string;
  /** Asks discovery for the owner again. */
  onRetry(): void;
}

/** What a page shows when discovery names no owner of `docType`. */
export function UnknownOwner({ docType, onRetry }: UnknownOwnerProps): React.JSX.Element {
  const { config } = usePlatform();
  const catalog = useCatalog();
  const permissions = usePermissions();
  const service = serviceOfDocType(docType);
  const meta = service ? catalog.metadata[service] : undefined;
  const remembered = service ? seenServices()[service] : undefined;
  const seen = service !== undefined && (service in catalog.services || remembered !== undefined);
  // A service this tab never saw may still be installed with releases kept (System Managers).
  const askReleases = service !== undefined && !seen && permissions.isSystemManager;
  const [kept, setKept] = useState<boolean>();
  useEffect(() => {
    if (!askReleases) return;
    let live = true;
    releasesApi(config.gatewayUrl)
      .overview()
      .then(
        (list) => live && setKept(list.some((s) => s.service === service)),
        () => live && setKept(false),
      );
    return () => {
      live = false;
    };
  }, [askReleases, config.gatewayUrl, service]);

  if (service && (seen || kept)) {
    const label =
      meta?.status === 'ready' ? serviceLabel(service, meta.value) : (remembered ?? serviceLabel(service));
    return (
      <ErrorState
        title={`${label} is not available right now.`}
        error={{ code: 'service_unavailable', message: `Discovery names no owner of ${docType} now.` }}
        onRetry={onRetry}
      />
    );
  }
  if (askReleases && kept === undefined) return <Loading label="Loading…" />;
  return (
    <Empty title="No app installed here provides this page.">
      <DeveloperDetails extra={<>No service owns {docType}.</>} />
      <a href="#/">Back to the home page</a>
    </Empty>
  );
}
