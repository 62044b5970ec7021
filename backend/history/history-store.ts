import type { WriteCompanion } from '../data/records';
import type { Database } from '../db/database';
import type { ChangeEntry, CommentEntry, TimelineEntry } from './timeline';

/** A change to append: a record's history entry without what the store gives it (`id`, `at`). */
export type NewChange = Omit<ChangeEntry, 'id' | 'at'> & { doctype: string; name: string };

/**
 * Where records' changes and comments are kept (docs/http-api.md#a-records-history): in the platform
 * database (`RecordHistory`), or in memory for the offline mocks (`MemoryRecordHistory`).
 */
export interface HistoryStore {
  /** Appends one change (create, update or delete) of a record; in `tx`, the write's transaction, when given. */
  record(entry: NewChange, tx?: Pick<Database, 'query'>): Promise<void>;
  /** `entry` as a companion row of its record's write, where the store can write one (the database). */
  companion?(entry: Omit<NewChange, 'name'>): WriteCompanion;
  /** The record's changes and comments, oldest first (a change and a comment at the same instant: the change). */
  timeline(doctype: string, name: string): Promise<TimelineEntry[]>;
  /** Adds a comment by `user`. */
  addComment(doctype: string, name: string, user: string, text: string): Promise<CommentEntry>;
  /** One comment of the record, or undefined. */
  comment(doctype: string, name: string, id: number): Promise<CommentEntry | undefined>;
  /** Replaces a comment's text (the caller checked it is its author's). */
  editComment(id: number, text: string): Promise<CommentEntry | undefined>;
  /** Removes a comment (the caller checked it is its author's). */
  deleteComment(id: number): Promise<void>;
}
