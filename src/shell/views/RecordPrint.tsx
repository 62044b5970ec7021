/**
 * A saved record laid out for paper (`#/app/<doctype>/<name>/print`): its title, each field's label and
 * value as the user may see it (personal data the user may not see stays masked, linked records show as
 * their titles), and when it was created and last changed. The print stylesheets (styles/print.css, and
 * styles/print-view.css, added with this view's code) leave out the Desk's header, sidebar and these
 * buttons, so only the record reaches the paper.
 */
import type { DeskRecord } from '../../contract/remote';
import { type DocTypeSchema, PII_MASK } from '../../protocol';
import { useRecord } from '../data/records';
import { type DeskField, deskFields, formatDateTime } from '../fields';
import { useDocumentTitle } from '../hooks/use-document-title';
import { useLinkTitles } from '../hooks/use-link-titles';
import { formatRoute } from '../routing/route';
import { adoptStyles } from '../styles/adopt-styles';
import printViewCss from '../styles/print-view.css';
import { displayValue } from './list/list-model';
import { ErrorState, Loading } from './states';

adoptStyles('print-view', printViewCss);

/** Props of {@link RecordPrint}. */
export interface RecordPrintProps {
  docType: string;
  schema: DocTypeSchema;
  id: string;
}

/** The print view of record `id`. */
export function RecordPrint({ docType, schema, id }: RecordPrintProps): React.JSX.Element {
  const { query, result: record } = useRecord<DeskRecord>({ resource: docType, id });
  const fields = deskFields(schema);
  const titles = useLinkTitles(fields, record ? [record] : []);
  const title = String(record?.[schema.titleField] ?? '') || id;
  useDocumentTitle(record ? `Print ${title}` : undefined, schema.label);
  const back = formatRoute({ kind: 'edit', docType, id });

  if (query.isLoading) return <Loading label="Loading…" />;
  if (query.isError || !record) {
    return (
      <ErrorState
        title={`This ${schema.label.toLowerCase()} could not be loaded.`}
        error={query.error}
        onRetry={() => query.refetch()}
      />
    );
  }
  return (
    <article className="desk-print" aria-labelledby="desk-print-title">
      <div className="desk-print__actions">
        <a href={back}>← Back to the record</a>
        <button type="button" className="desk-button desk-button--primary" onClick={() => window.print()}>
          Print
        </button>
      </div>
      <p className="desk-print__doctype">{schema.label}</p>
      <h1 id="desk-print-title" className="desk-print__title">
        {title}
      </h1>
      <p className="desk-print__meta">
        <span>
          ID <code>{id}</code>
        </span>
        {record.creation ? (
          <span>
            Created <time dateTime={String(record.creation)}>{formatDateTime(record.creation)}</time>
          </span>
        ) : null}
        {record.modified ? (
          <span>
            Last changed <time dateTime={String(record.modified)}>{formatDateTime(record.modified)}</time>
            {typeof record.modified_by === 'string' && record.modified_by ? ` by ${record.modified_by}` : ''}
          </span>
        ) : null}
      </p>
      <dl className="desk-print__fields">
        {fields.map((field) => (
          <div key={field.name} className="desk-print__field">
            <dt>{field.label}</dt>
            <dd>
              <PrintedValue field={field} value={record[field.name]} titles={titles} />
            </dd>
          </div>
        ))}
      </dl>
    </article>
  );
}

function PrintedValue({
  field,
  value,
  titles,
}: {
  field: DeskField;
  value: unknown;
  titles: ReturnType<typeof useLinkTitles>;
}): React.JSX.Element {
  if (value === PII_MASK) {
    return (
      <>
        {PII_MASK} <span className="desk-print__hidden">(hidden: personal data you may not see)</span>
      </>
    );
  }
  const text = displayValue(field, value, titles);
  return text ? <span>{text}</span> : <span className="desk-print__empty">—</span>;
}
