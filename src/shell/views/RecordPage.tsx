/**
 * A record's screen around its form (new, edit): the title, the record's id and timestamps, Print, Delete
 * with a confirmation, and below the form its attachments, who has seen it and its timeline. It loads with
 * the form (`route-form`): a list, the first screen of most visits, needs none of it.
 */
import { lazy, useState } from 'react';
import type { DeskRecord } from '../../contract/remote';
import { type DocTypeSchema, PII_MASK } from '../../protocol';
import { useDeleteRecord, useRecord } from '../data/records';
import { formatDateTime } from '../fields';
import { useDocumentTitle } from '../hooks/use-document-title';
import { usePermissions } from '../hooks/use-permissions';
import { usePlatform } from '../hooks/use-platform';
import { leaveGuard } from '../routing/leave-guard';
import { formatRoute } from '../routing/route';
import { adoptStyles } from '../styles/adopt-styles';
import recordPartsCss from '../styles/record-parts.css';
import { failureWords } from '../words/failure';
import { ConfirmDialog } from './ConfirmDialog';
import { Page } from './Page';

adoptStyles('record-parts', recordPartsCss);

// Each part below the form is a chunk of the form screen, loaded as the record page renders.
const RecordAttachments = lazy(() =>
  import(/* webpackChunkName: "route-form" */ './RecordAttachments').then((m) => ({
    default: m.RecordAttachments,
  })),
);
const RecordTimeline = lazy(() =>
  import(/* webpackChunkName: "route-form" */ './RecordTimeline').then((m) => ({
    default: m.RecordTimeline,
  })),
);
const RecordSeenBy = lazy(() =>
  import(/* webpackChunkName: "route-form" */ './RecordSeenBy').then((m) => ({
    default: m.RecordSeenBy,
  })),
);

/** Props of {@link RecordPage}. */
export interface RecordPageProps {
  docType: string;
  label: string;
  schema: DocTypeSchema;
  listLabel: string;
  titleField: string;
  service: string;
  id?: string;
  back(): void;
  onDeleted(): void;
  children: React.ReactNode;
}

/** A record's screen: its title, id and timestamps, and Delete with a confirmation. */
export function RecordPage({
  docType,
  label,
  schema,
  listLabel,
  titleField,
  service,
  id,
  back,
  onDeleted,
  children,
}: RecordPageProps): React.JSX.Element {
  const { notices } = usePlatform();
  const { query: read, result: record } = useRecord<DeskRecord>({
    resource: docType,
    id: id ?? '',
    enabled: id !== undefined,
  });
  // A title that is personal data the user may not see comes masked: the record's ID names it instead.
  const shownTitle = record?.[titleField] === PII_MASK ? '' : String(record?.[titleField] ?? '');
  const title = id === undefined ? undefined : shownTitle || id;
  useDocumentTitle(id === undefined ? `New ${label}` : title, label);
  const permissions = usePermissions();
  const [confirming, setConfirming] = useState(false);
  const { mutateAsync: remove, mutation: removing } = useDeleteRecord();
  const [failure, setFailure] = useState<string | undefined>();

  const confirmDelete = async () => {
    if (id === undefined) return;
    setFailure(undefined);
    try {
      await remove({ resource: docType, id });
      setConfirming(false);
      notices.show(`${label} “${title}” deleted.`);
      // Edits to a deleted record are moot: leaving must not ask to save them.
      leaveGuard().forget();
      onDeleted();
    } catch (error) {
      setConfirming(false);
      setFailure(`${label} “${title}” was not deleted. ${failureWords(error).message}`);
    }
  };

  return (
    <Page
      title={id === undefined ? `New ${label}` : (title ?? label)}
      service={service}
      docType={docType}
      back={back}
      backLabel={listLabel}
      actions={
        id !== undefined ? (
          <>
            <a className="desk-button" href={formatRoute({ kind: 'print', docType, id })}>
              Print
            </a>
            {permissions.can(docType, 'delete') ? (
              <button
                type="button"
                className="desk-button desk-button--danger"
                onClick={() => setConfirming(true)}
              >
                Delete
              </button>
            ) : null}
          </>
        ) : undefined
      }
    >
      {id !== undefined && record ? (
        <dl className="desk-record-info" aria-label="Record details">
          <div>
            <dt>ID</dt>
            <dd>
              <code>{id}</code>
            </dd>
          </div>
          {record.creation ? (
            <div>
              <dt>Created</dt>
              <dd>
                <time dateTime={String(record.creation)}>{formatDateTime(record.creation)}</time>
              </dd>
            </div>
          ) : null}
          {record.modified ? (
            <div>
              <dt>Modified</dt>
              <dd>
                <time dateTime={String(record.modified)}>{formatDateTime(record.modified)}</time>
              </dd>
            </div>
          ) : null}
        </dl>
      ) : null}
      {failure ? (
        <div className="desk-banner desk-banner--error" role="alert">
          {failure}
        </div>
      ) : null}
      {children}
      {id !== undefined ? <RecordAttachments docType={docType} schema={schema} id={id} /> : null}
      {id !== undefined ? (
        <RecordSeenBy
          docType={docType}
          schema={schema}
          id={id}
          readAt={record !== undefined ? read.dataUpdatedAt : 0}
        />
      ) : null}
      {id !== undefined ? <RecordTimeline docType={docType} schema={schema} id={id} /> : null}
      {confirming ? (
        <ConfirmDialog
          title={`Delete ${label.toLowerCase()} “${title}”?`}
          confirmLabel="Delete"
          busy={removing.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={() => void confirmDelete()}
        >
          <p>This cannot be undone.</p>
        </ConfirmDialog>
      ) : null}
    </Page>
  );
}
