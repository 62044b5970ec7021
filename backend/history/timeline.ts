/**
 * A record's timeline as the history API answers it (docs/http-api.md#a-records-history): what each create,
 * update and delete changed, by whom and when, and the comments people left on the record, oldest first.
 */

/** One field an update or create changed. `hidden`: a personal-data field, whose values are not kept. */
export interface FieldChange {
  field: string;
  old?: unknown;
  new?: unknown;
  hidden?: true;
}

/**
 * A create, update or delete the data API stored, or a file attached to the record or removed from it
 * (`attach` / `detach`: one change of the field `attachment`, `new` or `old` the file's name).
 */
export interface ChangeEntry {
  kind: 'create' | 'update' | 'delete' | 'attach' | 'detach';
  id: number;
  user: string;
  /** ISO 8601. */
  at: string;
  changes: FieldChange[];
}

/** A comment on the record (plain text). */
export interface CommentEntry {
  kind: 'comment';
  id: number;
  user: string;
  at: string;
  text: string;
  /** When its author last edited it, if they did. */
  edited?: string;
}

/** One line of a record's timeline. */
export type TimelineEntry = ChangeEntry | CommentEntry;

/** Longest comment accepted, in characters. */
export const MAX_COMMENT_LENGTH = 5000;
