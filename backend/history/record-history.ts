/**
 * Where a record's history and comments are kept: two tables of the platform database, next to the records
 * (each service keeps the history of its own records). The values of `pii` and `encrypted` fields are never
 * written here: the history says such a field changed, not from what to what, so personal data stays only
 * in the record, where it is protected at rest (docs/security.md#personal-data-at-rest).
 */
import type { WriteCompanion } from '../data/records';
import type { Database } from '../db/database';
import { registerMigration } from '../db/migrations';
import type { HistoryStore, NewChange } from './history-store';
import type { ChangeEntry, CommentEntry, FieldChange, TimelineEntry } from './timeline';

const HISTORY_SQL = `
  CREATE TABLE IF NOT EXISTS record_history (
    id      bigserial PRIMARY KEY,
    doctype text NOT NULL,
    name    text NOT NULL,
    kind    text NOT NULL,
    "user"  text NOT NULL,
    at      timestamptz NOT NULL DEFAULT now(),
    changes jsonb NOT NULL
  );
  CREATE INDEX IF NOT EXISTS record_history_record ON record_history (doctype, name, id);
  CREATE TABLE IF NOT EXISTS record_comments (
    id      bigserial PRIMARY KEY,
    doctype text NOT NULL,
    name    text NOT NULL,
    "user"  text NOT NULL,
    at      timestamptz NOT NULL DEFAULT now(),
    edited  timestamptz,
    text    text NOT NULL
  );
  CREATE INDEX IF NOT EXISTS record_comments_record ON record_comments (doctype, name, id);
`;
registerMigration({ id: 'history.records', sql: HISTORY_SQL });

interface ChangeRow {
  id: string | number;
  kind: ChangeEntry['kind'];
  user: string;
  at: Date | string;
  changes: FieldChange[] | string;
}

interface CommentRow {
  id: string | number;
  user: string;
  at: Date | string;
  edited: Date | string | null;
  text: string;
}

const iso = (value: Date | string) => new Date(value).toISOString();

function toComment(row: CommentRow): CommentEntry {
  return {
    kind: 'comment',
    id: Number(row.id),
    user: row.user,
    at: iso(row.at),
    text: row.text,
    ...(row.edited ? { edited: iso(row.edited) } : {}),
  };
}

export type { NewChange };

/** The history and comments of every record this process stores. */
export class RecordHistory implements HistoryStore {
  /** What identifies the database of the history (a write's companion row must belong in it). */
  readonly #database: object;

  constructor(private readonly db: Pick<Database, 'query'> & Partial<Pick<Database, 'identity'>>) {
    this.#database = db.identity ?? db;
  }

  /** Appends one change (create, update or delete) of a record; in `tx`, the write's transaction, when given. */
  async record(entry: NewChange, tx?: Pick<Database, 'query'>): Promise<void> {
    await (tx ?? this.db).query(
      'INSERT INTO record_history (doctype, name, kind, "user", changes) VALUES ($1, $2, $3, $4, $5::jsonb)',
      [entry.doctype, entry.name, entry.kind, entry.user, JSON.stringify(entry.changes)],
    );
  }

  /**
   * `entry` as the companion row of its record's write ({@link WriteCompanion}): the same INSERT as
   * {@link record}, for the record the write names, run in the write's statement only if it stored it.
   */
  companion(entry: Omit<NewChange, 'name'>): WriteCompanion {
    const changes = JSON.stringify(entry.changes);
    return {
      database: this.#database,
      insert: (name) => ({
        params: [entry.doctype, name, entry.kind, entry.user, changes],
        sql: (first, condition) =>
          `INSERT INTO record_history (doctype, name, kind, "user", changes)
           SELECT $${first}::text, $${first + 1}::text, $${first + 2}::text, $${first + 3}::text,
                  $${first + 4}::jsonb
            WHERE ${condition}`,
      }),
    };
  }

  /** The record's changes and comments, oldest first (a change and a comment at the same instant: the change). */
  async timeline(doctype: string, name: string): Promise<TimelineEntry[]> {
    const changes = await this.db.query<ChangeRow>(
      'SELECT id, kind, "user", at, changes FROM record_history WHERE doctype = $1 AND name = $2 ORDER BY id',
      [doctype, name],
    );
    const comments = await this.db.query<CommentRow>(
      'SELECT id, "user", at, edited, text FROM record_comments WHERE doctype = $1 AND name = $2 ORDER BY id',
      [doctype, name],
    );
    const entries: TimelineEntry[] = [
      ...changes.rows.map(
        (row): ChangeEntry => ({
          kind: row.kind,
          id: Number(row.id),
          user: row.user,
          at: iso(row.at),
          changes: typeof row.changes === 'string' ? JSON.parse(row.changes) : row.changes,
        }),
      ),
      ...comments.rows.map(toComment),
    ];
    return entries.sort((a, b) => a.at.localeCompare(b.at) || (a.kind === 'comment' ? 1 : -1));
  }

  /** Adds a comment by `user`. */
  async addComment(doctype: string, name: string, user: string, text: string): Promise<CommentEntry> {
    const { rows } = await this.db.query<CommentRow>(
      'INSERT INTO record_comments (doctype, name, "user", text) VALUES ($1, $2, $3, $4) RETURNING id, "user", at, edited, text',
      [doctype, name, user, text],
    );
    return toComment(rows[0]!);
  }

  /** One comment of the record, or undefined. */
  async comment(doctype: string, name: string, id: number): Promise<CommentEntry | undefined> {
    const { rows } = await this.db.query<CommentRow>(
      'SELECT id, "user", at, edited, text FROM record_comments WHERE doctype = $1 AND name = $2 AND id = $3',
      [doctype, name, id],
    );
    return rows[0] ? toComment(rows[0]) : undefined;
  }

  /** Replaces a comment's text (the caller checked it is its author's). */
  async editComment(id: number, text: string): Promise<CommentEntry | undefined> {
    const { rows } = await this.db.query<CommentRow>(
      'UPDATE record_comments SET text = $2, edited = now() WHERE id = $1 RETURNING id, "user", at, edited, text',
      [id, text],
    );
    return rows[0] ? toComment(rows[0]) : undefined;
  }

  /** Removes a comment (the caller checked it is its author's). */
  async deleteComment(id: number): Promise<void> {
    await this.db.query('DELETE FROM record_comments WHERE id = $1', [id]);
  }
}
