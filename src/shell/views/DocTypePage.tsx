/**
 * One DocType's screen (list, new, edit, print). It resolves the owner through discovery, takes the schema from the
 * owner's metadata, and renders the owner's remote views when its `./views` module provides them, else the
 * generic views. A remote that fails to load or throws is contained here: the generic view stays usable.
 * Around the views it owns the record workflow every DocType shares: the record's id and timestamps, Delete
 * with a confirmation, a confirmation after save, and the tab title.
 */
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useDeferredValue, useEffect, useState } from 'react';
import type { DeskRecord, FormViewProps, ListViewProps, RightsProps } from '../../contract/remote';
import { useInvalidateRecords } from '../data/records';
import { timelineKey } from '../history/history-api';
import { useCatalog } from '../hooks/use-catalog';
import { useDocTypeOwner } from '../hooks/use-doc-type-owner';
import { useDocumentTitle } from '../hooks/use-document-title';
import { usePermissions } from '../hooks/use-permissions';
import { usePlatform } from '../hooks/use-platform';
import { useRemoteViews } from '../hooks/use-remote-views';
import type { NavigateOptions } from '../hooks/use-route';
import { portalContainerOf } from '../isolation/portal-container';
import { navEntries } from '../platform/navigation';
import { formMode } from '../platform/screen-rights';
import { guardForm } from '../routing/guard-form';
import { type DeskRoute, emptyListState, formatRoute } from '../routing/route';
import { pluralLabel } from '../words/plural';
import { GenericList } from './GenericList';
import { Page } from './Page';
import { DeveloperDetails, Empty, ErrorState, Loading } from './states';

// The form loads with the first form screen (App's Suspense shows the loading state meanwhile).
const GenericForm = lazy(() =>
  import(/* webpackChunkName: "route-form" */ './GenericForm').then((m) => ({ default: m.GenericForm })),
);
// The print view, only when asked for.
const RecordPrint = lazy(() =>
  import(/* webpackChunkName: "route-print" */ './RecordPrint').then((m) => ({ default: m.RecordPrint })),
);
// The frame of a remote's own list or form loads with Refine's scope, which it renders in (`refine-scope`):
// a screen of the generic views needs neither.
const RemoteBoundary = lazy(() =>
  import(/* webpackChunkName: "refine-scope" */ './RemoteBoundary').then((m) => ({
    default: m.RemoteBoundary,
  })),
);
// What a list shows when something went wrong: a DocType no service owns, an owner whose remote failed.
const UnknownOwner = lazy(() =>
  import(/* webpackChunkName: "route-unknown-owner" */ './UnknownOwner').then((m) => ({
    default: m.UnknownOwner,
  })),
);
const RemoteUnavailable = lazy(() =>
  import(/* webpackChunkName: "remote-failure" */ './RemoteUnavailable').then((m) => ({
    default: m.RemoteUnavailable,
  })),
);
// The record's screen around a form: its code is the form's (`route-form`), loaded with the first one.
const RecordPage = lazy(() =>
  import(/* webpackChunkName: "route-form" */ './RecordPage').then((m) => ({ default: m.RecordPage })),
);

type DocTypeRoute = Extract<DeskRoute, { docType: string }>;

/** Props of {@link DocTypePage}. */
export interface DocTypePageProps {
  route: DocTypeRoute;
  navigate(to: DeskRoute, options?: NavigateOptions): void;
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

  // Deferred: the views arrive through a store React reads synchronously, and the first render of the
  // screen they bring (a remote's list or the generic one) would otherwise run as one long task; deferred,
  // it runs in slices the browser can answer input between, and the screen shows its loading state until then.
  const views = useDeferredValue(useRemoteViews(service, Boolean(entry?.url)));
  const [standard, setStandard] = useState(false);
  const invalidate = useInvalidateRecords();
  const queryClient = useQueryClient();
  const schema = meta?.status === 'ready' ? meta.value.doctypes.find((d) => d.name === docType) : undefined;
  const listLabel =
    meta?.status === 'ready' ? navEntries(meta.value).find((e) => e.docType === docType)?.label : undefined;
  // A list is titled here; a record page by RecordPage (below this component, whose effect runs first: a
  // title set here as well would overwrite the record's name).
  const listTitle =
    route.kind === 'list' ? (listLabel ?? (schema ? pluralLabel(schema.label) : undefined)) : null;
  useDocumentTitle(listTitle);

  if (owner.status === 'loading') return <Loading label="Loading…" />;
  if (owner.status === 'error') {
    return <ErrorState title="This page could not be opened." error={owner.error} onRetry={owner.retry} />;
  }
  if (owner.status === 'unknown') {
    return (
      <Suspense fallback={<Loading label="Loading…" />}>
        <UnknownOwner docType={docType} onRetry={owner.retry} />
      </Suspense>
    );
  }
  if (!meta || meta.status === 'loading') return <Loading label="Loading…" />;
  if (meta.status === 'error') {
    return (
      <ErrorState
        title="This app is not available right now."
        error={meta.error}
        onRetry={() => platform.catalog.retryMetadata(service!).catch(() => {})}
      />
    );
  }
  if (!schema) {
    return (
      <Empty title="This page does not exist.">
        <DeveloperDetails
          extra={
            <>
              {service} does not describe {docType}.
            </>
          }
        />
        <a href="#/">Back to the home page</a>
      </Empty>
    );
  }
  // Paper shows the Desk's own layout of the record, whichever form the service draws on screen.
  if (route.kind === 'print') return <RecordPrint docType={docType} schema={schema} id={route.id} />;
  if (views?.status === 'loading') return <Loading label="Loading…" />;

  const custom = views?.status === 'ready' && !standard ? views.value.views?.[docType] : undefined;
  const notice =
    views?.status === 'error' ? (
      <Suspense fallback={null}>
        <RemoteUnavailable
          service={service!}
          error={views.error}
          onRetry={() => platform.remoteViews.retry(service!).catch(() => {})}
        >
          Showing the standard view.
        </RemoteUnavailable>
      </Suspense>
    ) : null;
  // A remote view asks what the user may do with the contract's argument order (operation first).
  const can: RightsProps['can'] = (operation, doctype) => permissions.can(doctype, operation);
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
      state: route.state ?? emptyListState(),
      onStateChange: (state) => navigate({ kind: 'list', docType, state }, { replace: true }),
    };
    const List = custom?.list;
    return (
      <Page
        title={listLabel ?? pluralLabel(schema.label)}
        service={service!}
        docType={docType}
        actions={
          permissions.can(docType, 'create') ? (
            <NewButton label={schema.label} onClick={props.onCreate} />
          ) : undefined
        }
      >
        {notice}
        {List ? (
          <Suspense fallback={<Loading label="Loading…" />}>
            <RemoteBoundary
              service={service!}
              reloadRemote={() => platform.reloadRemote(service!)}
              what={`The ${schema.label.toLowerCase()} list`}
              actions={useStandard}
            >
              <List {...props} can={can} portalContainer={portalContainerOf(service!)} />
            </RemoteBoundary>
          </Suspense>
        ) : (
          <GenericList {...props} />
        )}
      </Page>
    );
  }

  const id = route.kind === 'edit' ? route.id : undefined;
  const formProps: FormViewProps = {
    docType,
    schema,
    id,
    onSaved: (record: DeskRecord) => {
      void invalidate({ resource: docType, invalidates: ['list', 'many', 'detail'] });
      // The save is a new line of the record's timeline.
      void queryClient.invalidateQueries({ queryKey: timelineKey(docType) });
      const title = record?.[schema.titleField];
      platform.notices.show(
        `${schema.label} ${typeof title === 'string' && title ? `“${title}” ` : ''}saved.`,
      );
      if (!id && typeof record?.name === 'string')
        navigate({ kind: 'edit', docType, id: record.name }, { replace: true });
    },
    onCancel: () => navigate({ kind: 'list', docType }),
    guardLeave: guardForm,
  };
  // Whether the form is editable depends on the user's rights: wait for them rather than flash a form.
  const rights = permissions.state.status;
  if (rights === 'unknown' || rights === 'loading') return <Loading label="Loading…" />;
  // A remote's form is for changing records: a user who may only read gets the Desk's read-only view.
  const mode = formMode(permissions.can, docType, id !== undefined);
  const Form = mode === 'editable' ? custom?.form : undefined;
  const back = () => navigate({ kind: 'list', docType });
  if (id === undefined && mode === 'read-only') {
    return (
      <Empty title={`You may not create ${pluralLabel(schema.label).toLowerCase()}.`}>
        <a href={formatRoute({ kind: 'list', docType })}>Back to {listLabel ?? pluralLabel(schema.label)}</a>
      </Empty>
    );
  }
  return (
    <RecordPage
      key={id ?? 'new'}
      docType={docType}
      label={schema.label}
      schema={schema}
      listLabel={listLabel ?? pluralLabel(schema.label)}
      titleField={schema.titleField}
      service={service!}
      id={id}
      back={back}
      onDeleted={back}
    >
      {notice}
      {Form ? (
        <Suspense fallback={<Loading label="Loading…" />}>
          <RemoteBoundary
            service={service!}
            reloadRemote={() => platform.reloadRemote(service!)}
            what={`The ${schema.label.toLowerCase()} form`}
            actions={useStandard}
          >
            <Form {...formProps} can={can} portalContainer={portalContainerOf(service!)} />
          </RemoteBoundary>
        </Suspense>
      ) : (
        <GenericForm {...formProps} readOnly={mode === 'read-only'} />
      )}
    </RecordPage>
  );
}

function NewButton({ label, onClick }: { label: string; onClick(): void }): React.JSX.Element {
  return (
    <button type="button" className="desk-button desk-button--primary" onClick={onClick}>
      New {label}
    </button>
  );
}
