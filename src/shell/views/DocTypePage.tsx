/**
 * One DocType's screen (list, new, edit). It resolves the owner through discovery, takes the schema from the
 * owner's metadata, and renders the owner's remote views when its `./views` module provides them, else the
 * generic views. A remote that fails to load or throws is contained here: the generic view stays usable.
 */
import { useInvalidate } from '@refinedev/core';
import { useEffect, useState } from 'react';
import { useCatalog } from '../hooks/use-catalog';
import { useDocTypeOwner } from '../hooks/use-doc-type-owner';
import { usePermissions } from '../hooks/use-permissions';
import { usePlatform } from '../hooks/use-platform';
import { useRemoteViews } from '../hooks/use-remote-views';
import type { DeskRecord, FormViewProps, ListViewProps } from '../remote-contract';
import type { DeskRoute } from '../routing/route';
import { GenericForm } from './GenericForm';
import { GenericList } from './GenericList';
import { RemoteBoundary } from './RemoteBoundary';
import { RemoteUnavailable } from './RemoteUnavailable';
import { describeError, Empty, ErrorState, Loading } from './states';

type DocTypeRoute = Exclude<DeskRoute, { kind: 'home' } | { kind: 'users' }>;

/** Props of {@link DocTypePage}. */
export interface DocTypePageProps {
  route: DocTypeRoute;
  navigate(to: DeskRoute): void;
}

/** The list or form screen of `route.docType`. */
export function DocTypePage({ route, navigate }: DocTypePageProps): React.JSX.Element {
  const { docType } = route;
  const platform = usePlatform();
  const permissions = usePermissions();
  const owner = useDocTypeOwner(docType);
  const catalog = useCatalog();
  const service = owner.status === 'ready' ? owner.owner : undefined;
  const entry = service ? catalog.services[service] : undefined;
  const meta = service ? catalog.metadata[service] : undefined;

  // A DocType of a service that is neither core nor in the remotes map: fetch its manifest, then its metadata.
  useEffect(() => {
    if (!service || entry) return;
    platform.discovery
      .loadManifest(service)
      .then((manifest) => platform.catalog.addManifest(manifest))
      .catch(() => {});
  }, [platform, service, entry]);

  const views = useRemoteViews(service, Boolean(entry?.url));
  const [standard, setStandard] = useState(false);
  const invalidate = useInvalidate();

  if (owner.status === 'loading') return <Loading label={`Finding the service of ${docType}…`} />;
  if (owner.status === 'error') {
    return (
      <ErrorState
        title={`Could not find the service of ${docType}.`}
        {...describeError(owner.error)}
        onRetry={owner.retry}
      />
    );
  }
  if (owner.status === 'unknown') {
    return (
      <Empty title={`No service provides ${docType}.`}>
        <a href="#/">Back to the Desk home</a>
      </Empty>
    );
  }
  if (!meta || meta.status === 'loading') return <Loading label={`Loading ${docType}…`} />;
  if (meta.status === 'error') {
    return (
      <ErrorState
        title={`The ${service} service did not send its metadata.`}
        {...describeError(meta.error)}
        onRetry={() => platform.catalog.retryMetadata(service!).catch(() => {})}
      />
    );
  }
  const schema = meta.value.doctypes.find((d) => d.name === docType);
  if (!schema) return <Empty title={`${service} does not describe ${docType}.`} />;
  if (views?.status === 'loading') return <Loading label={`Loading the ${service} interface…`} />;

  const custom = views?.status === 'ready' && !standard ? views.value.views?.[docType] : undefined;
  const notice =
    views?.status === 'error' ? (
      <RemoteUnavailable
        service={service!}
        error={views.error}
        onRetry={() => platform.remoteViews.retry(service!).catch(() => {})}
      >
        Showing the standard view.
      </RemoteUnavailable>
    ) : null;
  const useStandard = (
    <button type="button" className="desk-button" onClick={() => setStandard(true)}>
      Use the standard view
    </button>
  );

  if (route.kind === 'list') {
    const props: ListViewProps = {
      docType,
      schema,
      onOpen: (id) => navigate({ kind: 'edit', docType, id }),
      onCreate: () => navigate({ kind: 'new', docType }),
    };
    const List = custom?.list;
    return (
      <Page
        title={schema.label}
        service={service!}
        actions={
          permissions.can(docType, 'create') ? (
            <NewButton label={schema.label} onClick={props.onCreate} />
          ) : undefined
        }
      >
        {notice}
        {List ? (
          <RemoteBoundary service={service!} what={`The ${schema.label} list`} actions={useStandard}>
            <List {...props} />
          </RemoteBoundary>
        ) : (
          <GenericList {...props} />
        )}
      </Page>
    );
  }

  const formProps: FormViewProps = {
    docType,
    schema,
    id: route.kind === 'edit' ? route.id : undefined,
    onSaved: (record: DeskRecord) => {
      void invalidate({ resource: docType, invalidates: ['list', 'many', 'detail'] });
      navigate({ kind: 'list', docType });
      void record;
    },
    onCancel: () => navigate({ kind: 'list', docType }),
  };
  const Form = custom?.form;
  return (
    <Page title={schema.label} service={service!} back={() => navigate({ kind: 'list', docType })}>
      {notice}
      {Form ? (
        <RemoteBoundary service={service!} what={`The ${schema.label} form`} actions={useStandard}>
          <Form {...formProps} />
        </RemoteBoundary>
      ) : (
        <GenericForm {...formProps} />
      )}
    </Page>
  );
}

function NewButton({ label, onClick }: { label: string; onClick(): void }): React.JSX.Element {
  return (
    <button type="button" className="desk-button desk-button--primary" onClick={onClick}>
      New {label}
    </button>
  );
}

function Page({
  title,
  service,
  actions,
  back,
  children,
}: {
  title: string;
  service: string;
  actions?: React.ReactNode;
  back?: () => void;
  children: React.ReactNode;
}): React.JSX.Element {
  return (
    <div className="desk-page">
      <div className="desk-page__header">
        <div>
          {back ? (
            <button type="button" className="desk-button desk-button--link desk-page__back" onClick={back}>
              ← {title} list
            </button>
          ) : null}
          <h1 className="desk-page__title">{title}</h1>
          <p className="desk-page__service">
            Service: <code>{service}</code>
          </p>
        </div>
        {actions ? <div className="desk-actions">{actions}</div> : null}
      </div>
      {children}
    </div>
  );
}
