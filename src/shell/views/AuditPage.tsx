/**
 * The Audit page (`#/audit`), for System Managers: every reveal of personal data (who was shown which
 * flagged fields of which record, when, how and from where), newest first, filtered by DocType, record, user
 * and days, a page at a time; whether the log's hash chain is intact, as the server checks it
 * (docs/permissions.md#reveals-are-audited); and the reveals filtered saved as a CSV file, hashes included.
 * Filters and page live in the URL, so a view can be shared.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { hasFlaggedFields } from '../../protocol';
import { mayReadAudit } from '../audit/audit-access';
import { type AuditFilters, auditApi, auditKeys } from '../audit/audit-api';
import { fieldLabels, routeWords, viaWords } from '../audit/reveal-words';
import { formatDate, formatDateTime } from '../fields';
import { useCatalog } from '../hooks/use-catalog';
import { useDocTypeSchemas } from '../hooks/use-doc-type-schemas';
import { usePermissions } from '../hooks/use-permissions';
import { usePlatform } from '../hooks/use-platform';
import type { NavigateOptions } from '../hooks/use-route';
import type { CatalogSnapshot } from '../platform/catalog';
import { type NavEntry, navEntries } from '../platform/navigation';
import { type DeskRoute, formatRoute } from '../routing/route';
import adminPagesCss from '../styles/admin-pages.css';
import { adoptStyles } from '../styles/adopt-styles';
import { CsvExportButton } from './CsvExportButton';
import { Empty, ErrorState, Loading } from './states';

adoptStyles('admin-pages', adminPagesCss);

/** Reveals per page. */
export const AUDIT_PAGE_SIZE = 25;

/** Props of {@link AuditPage}. */
export interface AuditPageProps {
  route: Extract<DeskRoute, { kind: 'audit' }>;
  navigate(to: DeskRoute, options?: NavigateOptions): void;
}

/** The Audit page; a user who is not a System Manager sees a refusal instead, and nothing is asked. */
export function AuditPage({ route, navigate }: AuditPageProps): React.JSX.Element {
  const permissions = usePermissions();
  if (!permissions.ready) return <Loading />;
  if (!mayReadAudit(permissions.isSystemManager)) {
    return (
      <Empty title="Only a System Manager may read the audit log.">
        <a href="#/">Back to the home page</a>
      </Empty>
    );
  }
  return (
    <section className="desk-audit" aria-labelledby="desk-audit-title">
      <header className="desk-page__header">
        <h1 id="desk-audit-title" className="desk-page__title">
          Audit log
        </h1>
        <ExportAudit filters={route.filters ?? {}} />
      </header>
      <p className="desk-form__note">Every time personal data was shown in clear, newest first.</p>
      <ChainStatus />
      <AuditFilterForm
        // A new form for new filters from the URL (a link from a record, Back), so its fields show them.
        key={JSON.stringify(route.filters ?? {})}
        filters={route.filters ?? {}}
        onApply={(filters) => navigate({ kind: 'audit', filters })}
      />
      <RevealTable
        filters={route.filters ?? {}}
        page={route.page ?? 1}
        onPage={(page) => navigate({ kind: 'audit', filters: route.filters, page }, { replace: true })}
      />
    </section>
  );
}

/** The reveals the filters match, all of them, saved as `audit-log-<today>.csv`. */
function ExportAudit({ filters }: { filters: AuditFilters }): React.JSX.Element {
  const { config } = usePlatform();
  const now = new Date();
  const today = [now.getFullYear(), now.getMonth() + 1, now.getDate()]
    .map((n) => String(n).padStart(2, '0'))
    .join('-');
  return (
    <CsvExportButton
      url={auditApi(config.gatewayUrl).exportUrl(filters)}
      filename={`audit-log-${today}.csv`}
    />
  );
}

/** Whether the chain holds, in one sentence. */
function ChainStatus(): React.JSX.Element {
  const { config } = usePlatform();
  const query = useQuery({
    queryKey: auditKeys.verify,
    queryFn: ({ signal }) => auditApi(config.gatewayUrl).verify(signal),
  });
  if (query.isPending) {
    return (
      <p className="desk-banner" role="status">
        Checking the audit log…
      </p>
    );
  }
  if (query.isError) {
    return (
      <p className="desk-banner" role="status">
        The audit log could not be checked right now.
      </p>
    );
  }
  const status = query.data;
  if (!status.ok) {
    return (
      // The server's words name the entry (and in MACROSERVICE its service) and what is wrong with it.
      <div className="desk-banner desk-banner--error" role="alert">
        The audit log is not intact: {status.problem}.
      </div>
    );
  }
  return (
    <p className="desk-banner desk-banner--ok" role="status">
      The audit log is intact: {status.entries} {status.entries === 1 ? 'entry' : 'entries'}, none removed or
      changed.
    </p>
  );
}

function AuditFilterForm({
  filters,
  onApply,
}: {
  filters: AuditFilters;
  onApply(filters: AuditFilters): void;
}): React.JSX.Element {
  const [draft, setDraft] = useState(filters);
  const catalog = useCatalog();
  const id = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(draft);
  };
  const field = (key: keyof AuditFilters, label: string, placeholder: string) => (
    <label className="desk-filters__item" htmlFor={`${id}-${key}`}>
      {label}
      <input
        id={`${id}-${key}`}
        value={draft[key] ?? ''}
        placeholder={placeholder}
        // Narrower than an input's default twenty characters, so the whole row fits a 1280-pixel window.
        size={14}
        onChange={(e) => setDraft({ ...draft, [key]: e.target.value })}
      />
    </label>
  );
  const day = (key: 'from' | 'to', label: string) => (
    <label className="desk-filters__item" htmlFor={`${id}-${key}`}>
      {label}
      <input
        id={`${id}-${key}`}
        type="date"
        value={draft[key] ?? ''}
        // The other end of the range bounds this one, so the browser's picker offers no empty range.
        min={key === 'to' ? draft.from : undefined}
        max={key === 'from' ? draft.to : undefined}
        onChange={(e) => setDraft({ ...draft, [key]: e.target.value || undefined })}
      />
    </label>
  );
  return (
    <form className="desk-filters desk-filters--compact" aria-label="Filter the audit log" onSubmit={submit}>
      <label className="desk-filters__item" htmlFor={`${id}-doctype`}>
        DocType
        <select
          id={`${id}-doctype`}
          value={draft.doctype ?? ''}
          onChange={(e) => setDraft({ ...draft, doctype: e.target.value || undefined })}
        >
          <option value="">Any</option>
          {doctypeChoices(catalog, draft.doctype).map(({ docType, label }) => (
            <option key={docType} value={docType}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {field('record', 'Record', 'CUST-00001')}
      {field('user', 'User', 'Administrator')}
      {day('from', 'From')}
      {day('to', 'To')}
      {/* One group, so that a narrow window moves both buttons to the next line together. */}
      <div className="desk-filters__actions">
        <button type="submit" className="desk-button">
          Filter
        </button>
        {Object.values(filters).some(Boolean) ? (
          <button type="button" className="desk-button desk-button--link" onClick={() => onApply({})}>
            Clear filters
          </button>
        ) : null}
      </div>
    </form>
  );
}

function RevealTable({
  filters,
  page,
  onPage,
}: {
  filters: AuditFilters;
  page: number;
  onPage(page: number): void;
}): React.JSX.Element {
  const { config } = usePlatform();
  const start = (page - 1) * AUDIT_PAGE_SIZE;
  const query = useQuery({
    queryKey: auditKeys.reveals(filters, start, AUDIT_PAGE_SIZE),
    queryFn: ({ signal }) => auditApi(config.gatewayUrl).reveals(filters, start, AUDIT_PAGE_SIZE, signal),
    placeholderData: keepPreviousData,
  });
  // Labels where the DocTypes are known to the Desk; names otherwise (a DocType since uninstalled).
  const schemas = useDocTypeSchemas([
    ...new Set([
      ...(query.data?.data.map((e) => e.doctype) ?? []),
      ...(filters.doctype ? [filters.doctype] : []),
    ]),
  ]);
  if (query.isPending) return <Loading label="Loading the audit log…" />;
  if (query.isError) {
    return (
      <ErrorState
        title="The audit log could not be loaded."
        error={query.error}
        onRetry={() => void query.refetch()}
      />
    );
  }
  const { data, total } = query.data;
  if (total === 0) {
    const doctype = filters.doctype ? (schemas[filters.doctype]?.label ?? filters.doctype) : undefined;
    return <Empty title={nothingShownWords(filters, doctype)} />;
  }
  const pages = Math.max(1, Math.ceil(total / AUDIT_PAGE_SIZE));
  if (data.length === 0) {
    // A shared link to a page the log no longer reaches (other filters since, or a typed URL).
    return (
      <Empty title={`There ${pages === 1 ? 'is only one page' : `are only ${pages} pages`} of reveals.`}>
        <button type="button" className="desk-button" onClick={() => onPage(1)}>
          Go to the first page
        </button>
      </Empty>
    );
  }
  return (
    <>
      <div className="desk-table-wrap">
        <table className="desk-table" aria-busy={query.isPlaceholderData}>
          <caption className="desk-visually-hidden">Reveals of personal data, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">User</th>
              <th scope="col">DocType</th>
              <th scope="col">Record</th>
              <th scope="col">Fields</th>
              <th scope="col">How</th>
              <th scope="col">From</th>
            </tr>
          </thead>
          <tbody>
            {data.map((entry) => (
              <tr key={`${entry.service ?? ''}:${entry.seq}`}>
                <td data-label="When">
                  <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
                </td>
                <td data-label="User">{entry.user}</td>
                <td data-label="DocType" title={entry.doctype}>
                  {schemas[entry.doctype]?.label ?? entry.doctype}
                </td>
                <td data-label="Record">
                  <a href={formatRoute({ kind: 'edit', docType: entry.doctype, id: entry.record })}>
                    {entry.record}
                  </a>
                </td>
                <td data-label="Fields">{fieldLabels(schemas[entry.doctype], entry.fields)}</td>
                <td data-label="How">
                  {routeWords(entry.route)} · {viaWords(entry.via)}
                </td>
                <td data-label="From">{entry.client_address ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav className="desk-pager" aria-label="Pagination">
        <span className="desk-pager__info" aria-live="polite">
          {start + 1}–{start + data.length} of {total}
        </span>
        <button type="button" className="desk-button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
          Previous
        </button>
        <span>
          Page {page} of {pages}
        </span>
        <button
          type="button"
          className="desk-button"
          disabled={page >= pages}
          onClick={() => onPage(page + 1)}
        >
          Next
        </button>
      </nav>
    </>
  );
}

/**
 * The empty log's sentence, naming what it was filtered by (the DocType by its label), e.g. "No personal data
 * matching DocType “Customer” and user “sam” was shown between Nov 1, 2026 and Nov 30, 2026."
 */
export function nothingShownWords(filters: AuditFilters, doctypeLabel?: string): string {
  const parts = [
    doctypeLabel || filters.doctype ? `DocType “${doctypeLabel || filters.doctype}”` : '',
    filters.record ? `record “${filters.record}”` : '',
    filters.user ? `user “${filters.user}”` : '',
  ].filter(Boolean);
  const { from, to } = filters;
  const when =
    from && to
      ? ` between ${formatDate(from)} and ${formatDate(to)}`
      : from
        ? ` since ${formatDate(from)}`
        : to
          ? ` up to ${formatDate(to)}`
          : '';
  if (parts.length === 0) {
    return when
      ? `No personal data was shown in clear${when}.`
      : 'No personal data has been shown in clear yet.';
  }
  const named =
    parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
  return `No personal data matching ${named} was shown${when}.`;
}

/**
 * The DocTypes the audit can be filtered by, by their labels (the log stores names, e.g. `crm.Customer`):
 * every DocType with personal data of the services the Desk knows, sorted by label, and the one already
 * filtered by even when no service offers it now (a DocType since uninstalled keeps its entries).
 */
function doctypeChoices(catalog: CatalogSnapshot, current: string | undefined): NavEntry[] {
  // Only those with personal data: a reveal of any other is never logged, so choosing one finds nothing.
  const entries = Object.values(catalog.metadata).flatMap((state) => {
    if (state.status !== 'ready') return [];
    const flagged = new Set(state.value.doctypes.filter(hasFlaggedFields).map((d) => d.name));
    return navEntries(state.value).filter((e) => flagged.has(e.docType));
  });
  if (current && !entries.some((e) => e.docType === current)) {
    entries.push({ docType: current, label: current, singular: current });
  }
  return entries
    .map((e) => ({ ...e, label: e.singular }))
    .sort((a, b) => a.label.localeCompare(b.label) || a.docType.localeCompare(b.docType));
}
