/**
 * The audit log API the Desk's audit screens call (System Manager only; docs/permissions.md#reveals-are-audited):
 * reveals of personal data, newest first, and the server's check of the log's hash chain.
 */
import type { AuditEntry } from '../../protocol/audit';
import { fetchWithCredentials } from '../../sdk/http';
import { type AuditFilters, auditParams } from './audit-filters';

export type { AuditFilters };

/** One reveal: who was shown which flagged fields of which record, when, how and from where. */
export type RevealEntry = AuditEntry;

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
      const params = auditParams(filters);
      params.set('order', 'newest');
      params.set('limit_start', String(start));
      params.set('limit_page_length', String(length));
      return fetchWithCredentials<RevealPage>(`${base}?${params}`, { signal });
    },
    /** The file of every reveal `filters` match, in the order of the chain (a copy that can be verified). */
    exportUrl: (filters: AuditFilters) => {
      const query = auditParams(filters).toString();
      return `${base}/export.csv${query ? `?${query}` : ''}`;
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
