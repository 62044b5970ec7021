/**
 * The audit log API the Desk's audit screens call (System Manager only; docs/permissions.md#reveals-are-audited):
 * reveals of personal data, newest first, and the server's check of the log's hash chain.
 */
import type { AuditEntry } from '../../protocol/audit';
import { fetchWithCredentials } from '../../sdk/http';

/** One reveal: who was shown which flagged fields of which record, when, how and from where. */
export type RevealEntry = AuditEntry;

/** What the audit can be narrowed to; an empty or absent value does not filter. */
export interface AuditFilters {
  doctype?: string;
  record?: string;
  user?: string;
}

/** The server's check of the chain: intact up to its head, or the first entry that fails. */
export type ChainStatus =
  | { ok: true; entries: number; head: { seq: number; hash: string } }
  | { ok: false; entries: number; seq: number; problem: string };

/** One page of reveals and how many match in all. */
export interface RevealPage {
  data: RevealEntry[];
  total: number;
}

/** The calls, relative to the gateway. */
export function auditApi(gatewayUrl: string) {
  const base = `${gatewayUrl}/api/audit`;
  return {
    /** Reveals matching `filters`, newest first, `length` from `start`. */
    reveals: (filters: AuditFilters, start: number, length: number, signal?: AbortSignal) => {
      const params = new URLSearchParams({ order: 'newest' });
      for (const [key, value] of Object.entries(filters)) if (value?.trim()) params.set(key, value.trim());
      params.set('limit_start', String(start));
      params.set('limit_page_length', String(length));
      return fetchWithCredentials<RevealPage>(`${base}?${params}`, { signal });
    },
    /** The chain checked on the server. */
    verify: async (signal?: AbortSignal) =>
      (await fetchWithCredentials<{ data: ChainStatus }>(`${base}/verify`, { signal })).data,
  };
}

/** Query keys of the audit (every one starts with `audit`, so one invalidation refreshes them all). */
export const auditKeys = {
  all: ['audit'] as const,
  reveals: (filters: AuditFilters, start: number, length: number) =>
    ['audit', 'reveals', filters, start, length] as const,
  verify: ['audit', 'verify'] as const,
};
