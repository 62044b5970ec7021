/**
 * "Personal data seen by": under a record's form, who was shown its personal data (flagged fields) in
 * clear, when, and which fields, newest first, from the audit log (docs/permissions.md#reveals-are-audited).
 * Only for those the audit API answers (System Managers, in MONOLITH; audit-access.ts): anyone else gets
 * nothing of it, not even a request. A DocType without flagged fields has nothing to show.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { type DocTypeSchema, hasFlaggedFields } from '../../protocol';
import { mayReadAudit } from '../audit/audit-access';
import { auditApi, auditKeys } from '../audit/audit-api';
import { fieldLabels, routeWords } from '../audit/reveal-words';
import { formatDateTime } from '../fields';
import { usePermissions } from '../hooks/use-permissions';
import { usePlatform } from '../hooks/use-platform';
import { formatRoute } from '../routing/route';

/** How many reveals the section lists; the Audit page has the rest. */
export const SEEN_BY_LIMIT = 10;

/** Props of {@link RecordSeenBy}. */
export interface RecordSeenByProps {
  docType: string;
  schema: Pick<DocTypeSchema, 'label' | 'fields'>;
  id: string;
  /**
   * When the record was last read (ms since the epoch; 0 until it was): the section asks only then, and
   * again after each read (a save reads the record again), so the read that shows the form now, itself
   * audited when it revealed anything, is among the entries.
   */
  readAt: number;
}

/** The section, or nothing for a user who may not read the audit log or a DocType without personal data. */
export function RecordSeenBy(props: RecordSeenByProps): React.JSX.Element | null {
  const permissions = usePermissions();
  if (!mayReadAudit(permissions.isSystemManager) || !hasFlaggedFields(props.schema)) return null;
  return <SeenByList {...props} />;
}

function SeenByList({ docType, schema, id, readAt }: RecordSeenByProps): React.JSX.Element {
  const { config } = usePlatform();
  const titleId = useId();
  const filters = { doctype: docType, record: id };
  const query = useQuery({
    // One answer per read of the record; the previous one stays on screen while the next is asked.
    queryKey: [...auditKeys.reveals(filters, 0, SEEN_BY_LIMIT), readAt],
    queryFn: ({ signal }) => auditApi(config.gatewayUrl).reveals(filters, 0, SEEN_BY_LIMIT, signal),
    enabled: readAt > 0,
    placeholderData: keepPreviousData,
  });
  const noun = schema.label.toLowerCase();
  const more = (query.data?.total ?? 0) - (query.data?.data.length ?? 0);
  return (
    <section className="desk-timeline desk-seen-by" aria-labelledby={titleId}>
      <h2 id={titleId} className="desk-section-title">
        Personal data seen by
      </h2>
      {!query.isSuccess && !query.isError ? (
        <p role="status">Loading who has seen this {noun}…</p>
      ) : query.isError ? (
        <p className="desk-form__note">Who has seen this {noun} is not available right now.</p>
      ) : query.data.data.length === 0 ? (
        <p className="desk-form__note">Nobody has been shown the personal data of this {noun}.</p>
      ) : (
        <ol className="desk-timeline__list">
          {query.data.data.map((entry) => (
            <li key={`${entry.service ?? ''}:${entry.seq}`} className="desk-timeline__item">
              <strong>{entry.user}</strong> saw {fieldLabels(schema, entry.fields)}
              {entry.route === 'get' ? '' : ` ${routeWords(entry.route)}`}{' '}
              <time className="desk-timeline__time" dateTime={entry.at}>
                {formatDateTime(entry.at)}
              </time>
            </li>
          ))}
        </ol>
      )}
      {query.isSuccess && query.data.total > 0 ? (
        <p className="desk-form__note">
          {more > 0 ? `${more} earlier ${more === 1 ? 'time' : 'times'} not shown. ` : null}
          <a href={formatRoute({ kind: 'audit', filters })}>Open in the audit log</a>
        </p>
      ) : null}
    </section>
  );
}
