/**
 * The history API the record timeline calls (docs/http-api.md#a-records-history): a record's changes and
 * comments, and the comment calls. The wire types mirror the backend's `backend/history/timeline.ts`.
 */
import { fetchWithCredentials } from '../../sdk/http';

/** One field a change touched; `hidden` for personal data, whose values the history does not keep. */
export interface FieldChange {
  field: string;
  old?: unknown;
  new?: unknown;
  hidden?: true;
}

/** One line of a record's timeline: a stored change, or a comment. */
export type TimelineEntry =
  | {
      /** `attach` / `detach`: a file attached or removed (its name in the `attachment` change). */
      kind: 'create' | 'update' | 'delete' | 'attach' | 'detach';
      id: number;
      user: string;
      at: string;
      changes: FieldChange[];
    }
  | { kind: 'comment'; id: number; user: string; at: string; text: string; edited?: string };

/** A comment entry of the timeline. */
export type CommentEntry = Extract<TimelineEntry, { kind: 'comment' }>;

/** Longest comment the server accepts. */
export const MAX_COMMENT_LENGTH = 5000;

/** The calls for one record, relative to the gateway. */
export function historyApi(gatewayUrl: string, docType: string, name: string) {
  const base = `${gatewayUrl}/api/history/${encodeURIComponent(docType)}/${encodeURIComponent(name)}`;
  return {
    timeline: async (signal?: AbortSignal) =>
      (await fetchWithCredentials<{ data: TimelineEntry[] }>(base, { signal })).data,
    addComment: async (text: string) =>
      (
        await fetchWithCredentials<{ data: CommentEntry }>(`${base}/comments`, {
          method: 'POST',
          body: { text },
        })
      ).data,
    editComment: async (id: number, text: string) =>
      (
        await fetchWithCredentials<{ data: CommentEntry }>(`${base}/comments/${id}`, {
          method: 'PUT',
          body: { text },
        })
      ).data,
    deleteComment: (id: number) =>
      fetchWithCredentials<unknown>(`${base}/comments/${id}`, { method: 'DELETE' }).then(() => undefined),
  };
}

/** The query key of a record's timeline (invalidated when the record is saved). */
export const timelineKey = (docType: string, name?: string) =>
  name === undefined ? (['history', docType] as const) : (['history', docType, name] as const);
