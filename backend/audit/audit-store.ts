import type { AuditEntry, AuditFacts } from './chain';

/** Filters of {@link AuditStore.list}; every one optional. */
export interface AuditQuery {
  doctype?: string;
  record?: string;
  user?: string;
  /** Entries at or after this instant (ISO 8601, as `at` is written). */
  from?: string;
  /** Entries before this instant (ISO 8601): `from` and `to` make a half-open range, as days do. */
  to?: string;
  /** Entries after this many (in the order asked for). */
  start?: number;
  /** At most this many. */
  limit?: number;
  /** Newest first (the Desk's view); default chain order, oldest first (what verification reads). */
  newestFirst?: boolean;
  /**
   * Entries past this `seq` in the order asked for (after it oldest first, before it newest first): the
   * next page of a walk through the whole log starts where the last one ended, instead of skipping `start`.
   */
  pastSeq?: number;
}

/**
 * Where the reveals of personal data are kept (docs/operators.md#the-audit-log): the platform database on a
 * server ({@link AuditLog}), memory in the offline mocks. Either way append-only and hash-chained.
 */
export interface AuditStore {
  /** Appends `facts` as consecutive entries; returns them chained. */
  append(facts: readonly AuditFacts[]): Promise<AuditEntry[]>;
  /** Entries matching every given filter, in the order asked for, and how many match in all. */
  list(query?: AuditQuery): Promise<{ data: AuditEntry[]; total: number }>;
  /** The entries of {@link list} without counting them all (a walk through the log, page by page). */
  page(query?: AuditQuery): Promise<AuditEntry[]>;
  /** Every entry in chain order (for verification), read `pageSize` at a time where that matters. */
  entries(pageSize?: number): AsyncIterable<AuditEntry>;
}
