/**
 * What the Audit page narrows the log to, as its URL and the audit API write it: free of the API client, so
 * the router reads it without loading the Audit page's code.
 */

/** What the audit can be narrowed to; an empty or absent value does not filter. */
export interface AuditFilters {
  doctype?: string;
  record?: string;
  user?: string;
  /** The first day shown (`YYYY-MM-DD`, the user's own calendar), from its midnight. */
  from?: string;
  /** The last day shown (`YYYY-MM-DD`), to its end. */
  to?: string;
}

/** A calendar day as the Desk writes one in a filter. */
export const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** The instant the day `day` (`YYYY-MM-DD`) begins in this browser's time zone, as ISO 8601 in UTC. */
function startOfDay(day: string, plusDays = 0): string | undefined {
  if (!DAY_PATTERN.test(day)) return undefined;
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const start = new Date(year, month - 1, date + plusDays);
  return Number.isNaN(start.getTime()) ? undefined : start.toISOString();
}

/**
 * The API's query for `filters`: the days become the instants the API compares with, in the user's own time
 * zone (the log writes UTC), the last day included whole (the API's `to` is excluded).
 */
export function auditParams(filters: AuditFilters): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of ['doctype', 'record', 'user'] as const) {
    const value = filters[key]?.trim();
    if (value) params.set(key, value);
  }
  const from = filters.from ? startOfDay(filters.from) : undefined;
  const to = filters.to ? startOfDay(filters.to, 1) : undefined;
  if (from) params.set('from', from);
  if (to) params.set('to', to);
  return params;
}
