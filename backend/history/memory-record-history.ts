import type { HistoryStore, NewChange } from './history-store';
import type { ChangeEntry, CommentEntry, TimelineEntry } from './timeline';

/**
 * Records' changes and comments in memory, for the offline mocks: the same entries as `RecordHistory` keeps
 * in the database (flagged values never among them, history-observer.ts), so a record's timeline behaves
 * offline as on a server. Lost on reload, like the offline audit log.
 */
export class MemoryRecordHistory implements HistoryStore {
  readonly #changes: Array<ChangeEntry & { doctype: string; name: string }> = [];
  readonly #comments: Array<CommentEntry & { doctype: string; name: string }> = [];
  #nextId = 1;

  async record(entry: NewChange): Promise<void> {
    this.#changes.push({ ...structuredClone(entry), id: this.#nextId++, at: new Date().toISOString() });
  }

  async timeline(doctype: string, name: string): Promise<TimelineEntry[]> {
    const of = <E extends { doctype: string; name: string }>(entries: E[]) =>
      entries
        .filter((e) => e.doctype === doctype && e.name === name)
        .map(({ doctype: _d, name: _n, ...entry }) => structuredClone(entry));
    const entries: TimelineEntry[] = [...of(this.#changes), ...of(this.#comments)];
    return entries.sort((a, b) => a.at.localeCompare(b.at) || (a.kind === 'comment' ? 1 : -1));
  }

  async addComment(doctype: string, name: string, user: string, text: string): Promise<CommentEntry> {
    const comment: CommentEntry = {
      kind: 'comment',
      id: this.#nextId++,
      user,
      at: new Date().toISOString(),
      text,
    };
    this.#comments.push({ ...comment, doctype, name });
    return { ...comment };
  }

  async comment(doctype: string, name: string, id: number): Promise<CommentEntry | undefined> {
    const found = this.#comments.find((c) => c.id === id && c.doctype === doctype && c.name === name);
    return found ? this.#public(found) : undefined;
  }

  async editComment(id: number, text: string): Promise<CommentEntry | undefined> {
    const found = this.#comments.find((c) => c.id === id);
    if (!found) return undefined;
    found.text = text;
    found.edited = new Date().toISOString();
    return this.#public(found);
  }

  async deleteComment(id: number): Promise<void> {
    const at = this.#comments.findIndex((c) => c.id === id);
    if (at !== -1) this.#comments.splice(at, 1);
  }

  #public({
    doctype: _d,
    name: _n,
    ...comment
  }: CommentEntry & { doctype: string; name: string }): CommentEntry {
    return { ...comment };
  }
}
