/**
 * Removes a record's attachments with the record: when the data API deletes a record, its rows go and so do
 * the stored files no other attachment refers to. Run as a record observer, so the delete fails with it
 * rather than leave files of a record nobody can reach any more.
 */
import type { RecordObserver } from '../data/record-observer';
import type { AttachmentStore } from './attachment-store';

/** The observer; give it to the data API with the other record observers. */
export function attachmentObserver(attachments: Pick<AttachmentStore, 'removeAll'>): RecordObserver {
  return {
    async written(event) {
      if (event.kind === 'delete') await attachments.removeAll(event.doctype.name, event.name);
    },
  };
}
