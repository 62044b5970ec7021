/**
 * The data API's observer that writes a record's history: every create, update and delete it stores adds
 * one entry naming who, and which fields went from what to what. Fields flagged `pii` or `encrypted` are
 * named as changed without their values (see record-history.ts). The entry is written in the write's own
 * transaction: if it cannot be written, the write is rolled back with it, so no change goes unrecorded and
 * no entry describes a change that was not stored.
 */

import type { DocTypeDefinition } from '../../src/contract/doctype';
import { isFlagged } from '../../src/protocol';
import type { PendingWriteEvent, RecordObserver, RecordWriteEvent } from '../data/record-observer';
import type { HistoryStore } from './history-store';
import type { FieldChange } from './timeline';

/** The user a write is recorded under when no person or key made it (seed data, app code at start). */
export const SYSTEM_USER = 'System';

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The flagged fields a write carried that its writer gets masked. Comparing them with the stored values
 * would make the history an oracle: a writer without `read_pii` could send a guess and learn from the
 * absence of a change that it was the stored value. So each of them counts as changed, equal or not; a
 * writer who may read a field already knows its value, and their writes are compared.
 */
function sentUnseen(event: Pick<RecordWriteEvent, 'doctype' | 'sent' | 'masked'>): Set<string> {
  const masked = event.masked ?? [];
  return new Set(
    event.doctype.fields
      .filter((f) => isFlagged(f) && masked.includes(f.name) && event.sent?.includes(f.name))
      .map((f) => f.name),
  );
}

/**
 * The fields a write changed, in the DocType's order; values of flagged fields are left out, and a flagged
 * field the writer sent but gets masked is always a (hidden) change ({@link sentUnseen}). `after` may be the
 * stored record or the fields as written (a {@link PendingWriteEvent}): only the DocType's fields are
 * compared, so both give the same changes.
 */
export function fieldChanges(
  event: Pick<RecordWriteEvent, 'doctype' | 'before' | 'sent' | 'masked'> & {
    after?: Record<string, unknown>;
  },
): FieldChange[] {
  const doctype: DocTypeDefinition = event.doctype;
  const changes: FieldChange[] = [];
  if (!event.after) return changes; // a delete: the entry itself says what happened
  const unseen = sentUnseen(event);
  for (const field of doctype.fields) {
    const old = event.before?.[field.name];
    const now = event.after[field.name];
    if (same(old, now) && !unseen.has(field.name)) continue;
    // An empty field is not masked, so one empty before and after tells its writer nothing they did not see.
    if (unseen.has(field.name) && isEmpty(old) && isEmpty(now)) continue;
    if (isFlagged(field)) changes.push({ field: field.name, hidden: true });
    else
      changes.push({
        field: field.name,
        ...(old !== undefined ? { old } : {}),
        ...(now !== undefined ? { new: now } : {}),
      });
  }
  return changes;
}

/**
 * The observer; give it to the data API through `ContextOptions.recordObservers` or the root. Given a
 * history that can say its entry as a companion row (`companion`), it offers the entry of every write to
 * be stored in the write's own statement: the entry depends on nothing but the event (an update's `before`
 * is the record the route read; a delete's entry names no field), so it is known before the write.
 */
export function historyObserver(history: Pick<HistoryStore, 'record' | 'companion'>): RecordObserver {
  return {
    alongsideWrite(event: PendingWriteEvent) {
      return history.companion?.({
        doctype: event.doctype.name,
        kind: event.kind,
        user: event.principal?.user ?? SYSTEM_USER,
        changes: fieldChanges(event),
      });
    },
    async written(event) {
      await history.record(
        {
          doctype: event.doctype.name,
          name: event.name,
          kind: event.kind,
          user: event.principal?.user ?? SYSTEM_USER,
          changes: fieldChanges(event),
        },
        event.tx,
      );
    },
  };
}
