import type { AuditEntry, AuditFacts } from './chain';

/** Filters of {@link AuditStore.list}; every one optional. */
export interface AuditQuery {
  doctype?: string;
  record?: string;
  user?: string;
  /** Entries after this many (in the order asked for). */
  start?: number;
  /** At most this many. */
  limit?: number;
  /** Newest first (the Desk's view); default chain order, oldest first (what verification reads). */
  newestFirst?: boolean;
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
  /** Every entry in chain order (for verification), read `pageSize` at a time where that matters. */
  entries(pageSize?: number): AsyncIterable<AuditEntry>;
}
