/**
 * A record's timeline below its fields: who created it, who changed which field from what to what, and the
 * comments people left, oldest first; a box to add a comment, and Edit / Delete on one's own comments.
 * Personal-data fields are named as changed without their values (the history does not keep them).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import type { DocTypeSchema } from '../../protocol';
import { formatDateTime } from '../fields';
import {
  type CommentEntry,
  historyApi,
  MAX_COMMENT_LENGTH,
  type TimelineEntry,
  timelineKey,
} from '../history/history-api';
import { usePlatform } from '../hooks/use-platform';
import { useSession } from '../hooks/use-session';
import { failureWords } from '../words/failure';

/** Props of {@link RecordTimeline}. */
export interface RecordTimelineProps {
  docType: string;
  schema: Pick<DocTypeSchema, 'label' | 'fields'>;
  id: string;
}

function shown(value: unknown): string {
  if (value === undefined || value === null || value === '') return 'empty';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return `“${String(value)}”`;
}

/** What a change did, in words. */
export function describeChange(
  entry: Exclude<TimelineEntry, { kind: 'comment' }>,
  schema: Pick<DocTypeSchema, 'label' | 'fields'>,
): string {
  const noun = schema.label.toLowerCase();
  const file = entry.changes.find((c) => c.field === 'attachment');
  if (entry.kind === 'attach') return `attached ${String(file?.new ?? 'a file')}`;
  if (entry.kind === 'detach') return `removed the attachment ${String(file?.old ?? '')}`.trimEnd();
  if (entry.kind === 'delete') return `deleted this ${noun}`;
  if (entry.kind === 'create') return `created this ${noun}`;
  const label = (field: string) => schema.fields.find((f) => f.name === field)?.label ?? field;
  const parts = entry.changes.map((c) =>
    c.hidden
      ? `changed ${label(c.field)}`
      : `changed ${label(c.field)} from ${shown(c.old)} to ${shown(c.new)}`,
  );
  return parts.length > 0 ? parts.join('; ') : `saved this ${noun} without changes`;
}

/** The timeline section. */
export function RecordTimeline({ docType, schema, id }: RecordTimelineProps): React.JSX.Element {
  const { config } = usePlatform();
  const session = useSession();
  const me = session.status === 'signed-in' ? session.user : undefined;
  const api = historyApi(config.gatewayUrl, docType, id);
  const client = useQueryClient();
  const query = useQuery({
    queryKey: timelineKey(docType, id),
    queryFn: ({ signal }) => api.timeline(signal),
  });
  const refresh = () => client.invalidateQueries({ queryKey: timelineKey(docType, id) });
  const titleId = useId();

  return (
    <section className="desk-timeline" aria-labelledby={titleId}>
      <h2 id={titleId} className="desk-section-title">
        Activity
      </h2>
      {query.isLoading ? (
        <p role="status">Loading the activity…</p>
      ) : query.isError ? (
        <p className="desk-form__note">
          The activity of this {schema.label.toLowerCase()} is not available right now.
        </p>
      ) : (
        <ol className="desk-timeline__list">
          {(query.data ?? []).map((entry) =>
            entry.kind === 'comment' ? (
              <Comment
                key={`c${entry.id}`}
                entry={entry}
                mine={entry.user === me}
                api={api}
                onChanged={refresh}
              />
            ) : (
              <li key={`h${entry.id}`} className="desk-timeline__item">
                <strong>{entry.user}</strong> {describeChange(entry, schema)}{' '}
                <time className="desk-timeline__time" dateTime={entry.at}>
                  {formatDateTime(entry.at)}
                </time>
              </li>
            ),
          )}
        </ol>
      )}
      {/* Where the history cannot be read, a comment could not be stored either. */}
      {query.isSuccess ? <CommentBox onSubmit={(text) => api.addComment(text).then(refresh)} /> : null}
    </section>
  );
}

function Comment({
  entry,
  mine,
  api,
  onChanged,
}: {
  entry: CommentEntry;
  mine: boolean;
  api: ReturnType<typeof historyApi>;
  onChanged(): Promise<unknown>;
}): React.JSX.Element {
  const [editing, setEditing] = useState(false);
  const [failure, setFailure] = useState<string>();
  const remove = async () => {
    setFailure(undefined);
    try {
      await api.deleteComment(entry.id);
      await onChanged();
    } catch (error) {
      setFailure(`The comment was not deleted. ${failureWords(error).message}`);
    }
  };
  return (
    <li className="desk-timeline__item desk-timeline__comment">
      <strong>{entry.user}</strong> commented{' '}
      <time className="desk-timeline__time" dateTime={entry.at}>
        {formatDateTime(entry.at)}
      </time>
      {entry.edited ? <span className="desk-timeline__time"> (edited)</span> : null}
      {editing ? (
        <CommentBox
          initial={entry.text}
          label="Edit your comment"
          submitLabel="Save comment"
          onCancel={() => setEditing(false)}
          onSubmit={async (text) => {
            await api.editComment(entry.id, text);
            setEditing(false);
            await onChanged();
          }}
        />
      ) : (
        <p className="desk-timeline__text">{entry.text}</p>
      )}
      {mine && !editing ? (
        <span className="desk-actions">
          <button type="button" className="desk-button desk-button--small" onClick={() => setEditing(true)}>
            Edit
          </button>
          <button type="button" className="desk-button desk-button--small" onClick={() => void remove()}>
            Delete
          </button>
        </span>
      ) : null}
      {failure ? (
        <p className="desk-field__error" role="alert">
          {failure}
        </p>
      ) : null}
    </li>
  );
}

function CommentBox({
  initial = '',
  label = 'Add a comment',
  submitLabel = 'Comment',
  onSubmit,
  onCancel,
}: {
  initial?: string;
  label?: string;
  submitLabel?: string;
  onSubmit(text: string): Promise<unknown>;
  onCancel?(): void;
}): React.JSX.Element {
  const [text, setText] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string>();
  const id = useId();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim()) return;
    setBusy(true);
    setFailure(undefined);
    try {
      await onSubmit(text.trim());
      setText('');
    } catch (error) {
      setFailure(`The comment was not saved. ${failureWords(error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="desk-timeline__form" onSubmit={submit} aria-label={label}>
      <label htmlFor={id} className="desk-visually-hidden">
        {label}
      </label>
      <textarea
        id={id}
        rows={2}
        maxLength={MAX_COMMENT_LENGTH}
        placeholder={label}
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      <span className="desk-actions">
        <button type="submit" className="desk-button desk-button--small" disabled={busy || !text.trim()}>
          {submitLabel}
        </button>
        {onCancel ? (
          <button type="button" className="desk-button desk-button--small" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </span>
      {failure ? (
        <p className="desk-field__error" role="alert">
          {failure}
        </p>
      ) : null}
    </form>
  );
}
