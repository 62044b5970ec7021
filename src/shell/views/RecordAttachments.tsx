/**
 * The files attached to a record, below its fields: each with its size, who attached it and when, a link
 * that downloads it, and Delete (after a confirmation) for its uploader or whoever may change the record;
 * "Attach file" for those who may change it. An upload shows a busy state, and a refusal (a file too large:
 * the server names the limit) is said next to the button.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type ChangeEvent, useId, useRef, useState } from 'react';
import type { DocTypeSchema } from '../../protocol';
import { isSdkError } from '../../sdk/errors';
import { type Attachment, attachmentsApi, attachmentsKey, formatSize } from '../attachments/attachments-api';
import { formatDateTime } from '../fields';
import { timelineKey } from '../history/history-api';
import { usePermissions } from '../hooks/use-permissions';
import { usePlatform } from '../hooks/use-platform';
import { useSession } from '../hooks/use-session';
import { failureWords } from '../words/failure';
import { ConfirmDialog } from './ConfirmDialog';

/** Props of {@link RecordAttachments}. */
export interface RecordAttachmentsProps {
  docType: string;
  schema: Pick<DocTypeSchema, 'label'>;
  id: string;
}

/** Why an upload failed, in words; a file too large gets the server's sentence, which names the limit. */
export function uploadFailure(fileName: string, error: unknown): string {
  if (isSdkError(error) && error.code === 'payload_too_large') {
    return `“${fileName}” is too large. ${error.message}`;
  }
  return `“${fileName}” was not attached. ${failureWords(error).message}`;
}

/** The attachments section of an existing record's form. */
export function RecordAttachments({ docType, schema, id }: RecordAttachmentsProps): React.JSX.Element {
  const { config } = usePlatform();
  const session = useSession();
  const permissions = usePermissions();
  const me = session.status === 'signed-in' ? session.user : undefined;
  const mayWrite = permissions.can(docType, 'write');
  const api = attachmentsApi(config.gatewayUrl, docType, id);
  const client = useQueryClient();
  const query = useQuery({
    queryKey: attachmentsKey(docType, id),
    queryFn: ({ signal }) => api.list(signal),
  });
  const refresh = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: attachmentsKey(docType, id) }),
      client.invalidateQueries({ queryKey: timelineKey(docType, id) }),
    ]);
  const [uploading, setUploading] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const [removing, setRemoving] = useState<Attachment>();
  const [removeBusy, setRemoveBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const titleId = useId();
  const noun = schema.label.toLowerCase();

  const attach = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    setFailure(undefined);
    setUploading(file.name);
    try {
      await api.upload(file);
      await refresh();
    } catch (error) {
      setFailure(uploadFailure(file.name, error));
    } finally {
      setUploading(undefined);
    }
  };

  const remove = async () => {
    if (!removing) return;
    setRemoveBusy(true);
    setFailure(undefined);
    try {
      await api.remove(removing.id);
      await refresh();
    } catch (error) {
      setFailure(`“${removing.file_name}” was not deleted. ${failureWords(error).message}`);
    } finally {
      setRemoveBusy(false);
      setRemoving(undefined);
    }
  };

  return (
    <section className="desk-attachments" aria-labelledby={titleId} aria-busy={uploading !== undefined}>
      <h2 id={titleId} className="desk-section-title">
        Attachments
      </h2>
      {query.isLoading ? (
        <p role="status">Loading the attachments…</p>
      ) : query.isError ? (
        <p className="desk-form__note">The attachments of this {noun} are not available right now.</p>
      ) : (query.data ?? []).length === 0 ? (
        <p className="desk-form__note">No files are attached to this {noun}.</p>
      ) : (
        <ul className="desk-attachments__list">
          {(query.data ?? []).map((file) => (
            <li key={file.id} className="desk-attachments__item">
              <a href={api.downloadUrl(file.id)} download={file.file_name}>
                {file.file_name}
              </a>{' '}
              <span className="desk-attachments__meta">
                {formatSize(file.size)} · {file.uploader} ·{' '}
                <time dateTime={file.at}>{formatDateTime(file.at)}</time>
              </span>
              {mayWrite || file.uploader === me ? (
                <button
                  type="button"
                  className="desk-button desk-button--small"
                  aria-label={`Delete ${file.file_name}`}
                  onClick={() => setRemoving(file)}
                >
                  Delete
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {mayWrite && query.isSuccess ? (
        <div className="desk-actions">
          <input
            ref={input}
            type="file"
            className="desk-visually-hidden"
            // Reached through the button below, which says what it does; not a second control of its own.
            aria-hidden="true"
            tabIndex={-1}
            onChange={(event) => void attach(event)}
          />
          <button
            type="button"
            className="desk-button desk-button--small"
            disabled={uploading !== undefined}
            onClick={() => input.current?.click()}
          >
            {uploading === undefined ? 'Attach file' : 'Attaching…'}
          </button>
          {uploading !== undefined ? <span role="status">Uploading “{uploading}”…</span> : null}
        </div>
      ) : null}
      {failure ? (
        <p className="desk-field__error" role="alert">
          {failure}
        </p>
      ) : null}
      {removing ? (
        <ConfirmDialog
          title={`Delete “${removing.file_name}”?`}
          confirmLabel="Delete"
          busy={removeBusy}
          onConfirm={() => void remove()}
          onCancel={() => setRemoving(undefined)}
        >
          The file is removed from this {noun} for everyone.
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
