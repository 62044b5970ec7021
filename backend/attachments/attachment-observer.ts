/**
 * Removes a record's attachments with the record: when the data API deletes a record, its rows go and so do
 * the stored files no other attachment refers to. Run as a record observer in the delete's transaction, so
 * the rows go with the record or stay with it; the files follow once the transaction is over.
 */
import type { RecordObserver } from '../data/record-observer';
import type { AttachmentStore } from './attachment-store';

/** The observer; give it to the data API with the other record observers. */
export function attachmentObserver(
  attachments: Pick<AttachmentStore, 'removeAll'> & Partial<Pick<AttachmentStore, 'removeAllAlongside'>>,
): RecordObserver {
  return {
    async written(event) {
      if (event.kind === 'delete') await attachments.removeAll(event.doctype.name, event.name, event.tx);
    },
    // A create or update removes nothing, so it needs no transaction on this observer's account; a delete's
    // rows go in its own statement where the store can say them so (else undefined: a transaction).
    alongsideWrite: (event) =>
      event.kind !== 'delete'
        ? null
        : event.name === undefined
          ? undefined
          : attachments.removeAllAlongside?.(event.doctype.name, event.name),
  };
}
