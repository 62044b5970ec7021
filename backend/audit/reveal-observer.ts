import type { RecordObserver, RecordReadEvent } from '../data/record-observer';
import type { ReadCompanion } from '../data/records';
import type { AuditFacts } from './chain';

/** Where reveals are appended (the {@link AuditLog}, or anything with its `append`). */
export interface RevealSink {
  append(facts: readonly AuditFacts[]): Promise<unknown>;
  /** Appends `facts` in the statement that reads their record, where the store can and the sink would ({@link AuditLog}). */
  companion?(facts: readonly AuditFacts[], appended: () => void): ReadCompanion | undefined;
}

/** The entries a read adds: one per record whose flagged fields went out in clear to a person or API key. */
function revealFacts(event: RecordReadEvent, now: Date = new Date()): AuditFacts[] {
  const principal = event.principal;
  if (!principal || event.revealed.length === 0) return [];
  const at = now.toISOString();
  // A list projected without `name` carries no flagged field either (the record store adds `name` to any
  // projection of one), so a record without a name revealed nothing.
  return event.names
    .filter((record) => typeof record === 'string')
    .map((record) => ({
      at,
      user: principal.user,
      via: principal.via,
      doctype: event.doctype.name,
      record,
      fields: [...event.revealed],
      route: event.route,
      client_address: event.clientAddress ?? null,
    }));
}

/**
 * The data API's observer that audits reveals (docs/permissions.md#reveals-are-audited): every read that
 * returns `pii` or `encrypted` fields unmasked appends one entry per record before the answer goes out; a
 * reader who got the mask adds none. If the append fails, so does the read: nothing is revealed unaudited.
 * The read of one record carries its entry in its own statement when the sink and the store allow it
 * ({@link RecordObserver.alongside}); `read` then has nothing left to append.
 */
export function revealObserver(sink: RevealSink, now: () => Date = () => new Date()): RecordObserver {
  /** Reads whose entries the store already wrote with the record's read. */
  const appended = new WeakSet<RecordReadEvent>();
  return {
    alongside(event) {
      if (!sink.companion) return undefined;
      const facts = revealFacts(event, now());
      return facts.length > 0 ? sink.companion(facts, () => appended.add(event)) : undefined;
    },
    async read(event) {
      if (appended.has(event)) return;
      const facts = revealFacts(event, now());
      if (facts.length > 0) await sink.append(facts);
    },
  };
}
