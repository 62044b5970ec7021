/**
 * Where a process keeps the attachments of its records: on a server a table of the platform database with
 * the content in files under `<data_dir>/attachments` (db-attachment-store.ts); in the offline mocks, in
 * memory ({@link MemoryAttachmentStore}).
 */
import type { WriteCompanion } from '../data/records';
import type { Database } from '../db/database';
import { type Attachment, sha256Hex } from './attachment';

/** What an upload stores. */
export interface NewAttachment {
  doctype: string;
  record: string;
  fileName: string;
  mediaType: string;
  uploader: string;
  bytes: Uint8Array;
}

/** The attachments of records. */
export interface AttachmentStore {
  /** Stores the content and its row; answers the row. */
  add(attachment: NewAttachment): Promise<Attachment>;
  /** The record's attachments, oldest first. */
  list(doctype: string, record: string): Promise<Attachment[]>;
  /** One attachment of the record, or undefined. */
  get(doctype: string, record: string, id: string): Promise<Attachment | undefined>;
  /** The content of an attachment this store answered; undefined when it is missing (an incomplete restore). */
  content(attachment: Attachment): Promise<Uint8Array | undefined>;
  /** Removes one attachment (and its content when nothing else refers to it); false when there was none. */
  remove(doctype: string, record: string, id: string): Promise<boolean>;
  /**
   * Removes every attachment of a record (a deleted record); answers how many. With `tx` (the record's
   * delete, in its transaction) the rows go with the record's commit, and the files nothing refers to
   * any more are removed once that transaction is over: a delete that rolls back keeps them.
   */
  removeAll(doctype: string, record: string, tx?: Pick<Database, 'query'>): Promise<number>;
  /**
   * {@link removeAll} of a record as a companion of its delete's own statement (`WriteCompanion`,
   * backend/data/records.ts): the rows go with the record in that one statement, and the files nothing
   * refers to any more once it stored the delete. Optional: a store without it has the delete run in a
   * transaction.
   */
  removeAllAlongside?(doctype: string, record: string): WriteCompanion;
  /** Resolves once the file removals a transactional `removeAll` left for after its commit are done. */
  idle(): Promise<void>;
}

/** A new attachment id: random, unguessable, URL-safe. */
export function newAttachmentId(): string {
  return crypto.randomUUID();
}

/** The attachments in memory (the offline mocks): rows in a list, content by SHA-256. */
export class MemoryAttachmentStore implements AttachmentStore {
  private readonly rows: Attachment[] = [];
  private readonly blobs = new Map<string, Uint8Array>();

  async add(input: NewAttachment): Promise<Attachment> {
    const sha256 = await sha256Hex(input.bytes);
    this.blobs.set(sha256, input.bytes.slice());
    const row: Attachment = {
      id: newAttachmentId(),
      doctype: input.doctype,
      record: input.record,
      file_name: input.fileName,
      media_type: input.mediaType,
      size: input.bytes.byteLength,
      sha256,
      uploader: input.uploader,
      at: new Date().toISOString(),
    };
    this.rows.push(row);
    return { ...row };
  }

  async list(doctype: string, record: string): Promise<Attachment[]> {
    return this.rows.filter((r) => r.doctype === doctype && r.record === record).map((r) => ({ ...r }));
  }

  async get(doctype: string, record: string, id: string): Promise<Attachment | undefined> {
    const row = this.rows.find((r) => r.doctype === doctype && r.record === record && r.id === id);
    return row ? { ...row } : undefined;
  }

  async content(attachment: Attachment): Promise<Uint8Array | undefined> {
    return this.blobs.get(attachment.sha256)?.slice();
  }

  async remove(doctype: string, record: string, id: string): Promise<boolean> {
    const index = this.rows.findIndex((r) => r.doctype === doctype && r.record === record && r.id === id);
    if (index === -1) return false;
    const [removed] = this.rows.splice(index, 1);
    this.forgetUnreferenced(removed!.sha256);
    return true;
  }

  async idle(): Promise<void> {}

  async removeAll(doctype: string, record: string): Promise<number> {
    const mine = this.rows.filter((r) => r.doctype === doctype && r.record === record);
    for (const row of mine) await this.remove(doctype, record, row.id);
    return mine.length;
  }

  private forgetUnreferenced(sha256: string): void {
    if (!this.rows.some((r) => r.sha256 === sha256)) this.blobs.delete(sha256);
  }
}
