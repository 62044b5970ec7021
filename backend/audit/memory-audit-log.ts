import type { AuditQuery, AuditStore } from './audit-store';
import { type AuditEntry, type AuditFacts, chain, GENESIS_HASH } from './chain';

/**
 * The audit log in memory, for the offline mocks: the same chain as {@link AuditLog} keeps in the database,
 * so the Desk's audit screens and `GET /api/audit` behave offline as on a server. Lost on reload.
 */
export class MemoryAuditLog implements AuditStore {
  readonly #entries: AuditEntry[] = [];

  /** Appends `facts` as consecutive entries after the newest. */
  async append(facts: readonly AuditFacts[]): Promise<AuditEntry[]> {
    const last = this.#entries[this.#entries.length - 1];
    const added = chain(last ?? { seq: 0, hash: GENESIS_HASH }, facts);
    this.#entries.push(...added);
    return added;
  }

  /** Entries matching every given filter, in the order asked for, and how many match in all. */
  async list(query: AuditQuery = {}): Promise<{ data: AuditEntry[]; total: number }> {
    const matching = this.#matching({ ...query, pastSeq: undefined });
    return { data: this.#window(matching, query), total: matching.length };
  }

  /** The entries of {@link list}, uncounted. */
  async page(query: AuditQuery = {}): Promise<AuditEntry[]> {
    return this.#window(this.#matching(query), query);
  }

  #matching(query: AuditQuery): AuditEntry[] {
    const past = query.pastSeq;
    return this.#entries.filter(
      (e) =>
        (query.doctype === undefined || e.doctype === query.doctype) &&
        (query.record === undefined || e.record === query.record) &&
        (query.user === undefined || e.user === query.user) &&
        (query.from === undefined || e.at >= query.from) &&
        (query.to === undefined || e.at < query.to) &&
        (past === undefined || (query.newestFirst ? e.seq < past : e.seq > past)),
    );
  }

  #window(matching: AuditEntry[], query: AuditQuery): AuditEntry[] {
    const ordered = query.newestFirst ? [...matching].reverse() : matching;
    const start = query.start ?? 0;
    return ordered.slice(start, start + (query.limit ?? 100));
  }

  /** Every entry in chain order. */
  async *entries(): AsyncGenerator<AuditEntry> {
    yield* [...this.#entries];
  }
}
