/**
 * A record's history and comments (docs/http-api.md#a-records-history), each checked like the record:
 * - `GET /api/history/:doctype/:name`: `{ data: TimelineEntry[] }`, to whoever may read the DocType;
 * - `POST /api/history/:doctype/:name/comments` `{ text }`: 201 `{ data: CommentEntry }`, by a reader of an
 *   existing record;
 * - `PUT|DELETE /api/history/:doctype/:name/comments/:id`: by the comment's author only (403 `forbidden`
 *   to anyone else), 404 `not_found` for no such comment.
 * A comment is plain text, 1 to {@link MAX_COMMENT_LENGTH} characters (422 `validation_failed`).
 */
import { type Context, Hono } from 'hono';
import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { AppContext } from '../context';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { readJsonBody } from '../http/read-body';
import { recordAccess } from '../permissions/record-access';
import { rolesOf } from '../permissions/routes';
import type { HistoryStore } from './history-store';
import { MAX_COMMENT_LENGTH } from './timeline';

/** The history API's prefix. */
export const HISTORY_PREFIX = '/api/history';

/** What the history routes use of the process. */
export type HistoryRouteDeps = Pick<AppContext, 'doctypes' | 'permissions' | 'records'> & {
  history: HistoryStore;
};

function notFound(message = 'No such record.'): PlatformError {
  return new PlatformError('not_found', message, { status: 404 });
}

function commentText(body: unknown): string {
  const text = (body as { text?: unknown } | null)?.text;
  const trimmed = typeof text === 'string' ? text.trim() : '';
  if (!trimmed || trimmed.length > MAX_COMMENT_LENGTH) {
    throw new PlatformError('validation_failed', 'The comment is invalid.', {
      status: 422,
      fields: [
        {
          field: 'text',
          code: 'invalid',
          message: `A comment is 1 to ${MAX_COMMENT_LENGTH} characters of text.`,
        },
      ],
    });
  }
  return trimmed;
}

/** The history routes. */
export function historyRoutes(deps: HistoryRouteDeps): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  /** The DocType, after checking the caller may read it (as the data API does). */
  const readable = async (c: Context<AppEnv>): Promise<DocTypeDefinition> => {
    const doctype = deps.doctypes.get(c.req.param('doctype') ?? '');
    if (!doctype)
      throw new PlatformError('unknown_doctype', 'No such DocType is installed.', { status: 404 });
    const access = await recordAccess(deps.permissions, rolesOf(c.get('principal')), doctype);
    access.require('read');
    return doctype;
  };

  /** The caller's comment `:id` on the record, refusing anyone but its author. */
  const ownComment = async (c: Context<AppEnv>, doctype: DocTypeDefinition) => {
    const id = Number(c.req.param('id'));
    const comment = Number.isSafeInteger(id)
      ? await deps.history.comment(doctype.name, c.req.param('name') ?? '', id)
      : undefined;
    if (!comment) throw notFound('No such comment.');
    if (comment.user !== c.get('principal')?.user) {
      throw new PlatformError('forbidden', 'Only its author may change a comment.', { status: 403 });
    }
    return comment;
  };

  routes.get(`${HISTORY_PREFIX}/:doctype/:name`, async (c) => {
    const doctype = await readable(c);
    c.header('Cache-Control', 'no-store');
    return c.json({ data: await deps.history.timeline(doctype.name, c.req.param('name')) });
  });

  routes.post(`${HISTORY_PREFIX}/:doctype/:name/comments`, async (c) => {
    const doctype = await readable(c);
    const name = c.req.param('name');
    if (!(await deps.records.get(doctype, name))) throw notFound();
    const text = commentText(await readJsonBody(c));
    const user = c.get('principal')?.user ?? '';
    return c.json({ data: await deps.history.addComment(doctype.name, name, user, text) }, 201);
  });

  routes.put(`${HISTORY_PREFIX}/:doctype/:name/comments/:id`, async (c) => {
    const doctype = await readable(c);
    const comment = await ownComment(c, doctype);
    const text = commentText(await readJsonBody(c));
    return c.json({ data: await deps.history.editComment(comment.id, text) });
  });

  routes.delete(`${HISTORY_PREFIX}/:doctype/:name/comments/:id`, async (c) => {
    const doctype = await readable(c);
    const comment = await ownComment(c, doctype);
    await deps.history.deleteComment(comment.id);
    return c.body(null, 204);
  });

  return routes;
}
