/**
 * A record's attachments (docs/http-api.md#a-records-attachments), each checked like the record itself:
 * - `POST /api/resource/:doctype/:name/attachments?filename=<name>`: the raw file as the body, its media type
 *   as `Content-Type`; needs `write` on the DocType and an existing record; 201 `{ data: Attachment }`, 413
 *   `payload_too_large` past `attachments.max_bytes`;
 * - `GET …/attachments`: `{ data: Attachment[] }`, to whoever may read the DocType;
 * - `GET …/attachments/:id`: the file, as a download that no browser renders in the Desk's origin;
 * - `DELETE …/attachments/:id`: by its uploader, or by whoever may write the record; 204.
 * An upload and a removal are each a line in the record's timeline.
 */
import { type Context, Hono } from 'hono';
import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { AppContext } from '../context';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { requestHeader } from '../http/node-request';
import { readLimitedBody } from '../http/read-limited-body';
import { type RecordAccess, recordAccess } from '../permissions/record-access';
import { rolesOf } from '../permissions/routes';
import {
  attachmentTooLarge,
  contentDisposition,
  declaredMediaType,
  sanitiseFileName,
  servedMediaType,
} from './attachment';
import type { AttachmentStore } from './attachment-store';

/** The path of a record's attachments, in Hono's pattern syntax. */
export const ATTACHMENTS_ROUTE = '/api/resource/:doctype/:name/attachments';

/** What the attachment routes use of the process. */
export type AttachmentRouteDeps = Pick<AppContext, 'config' | 'doctypes' | 'permissions' | 'records'> & {
  attachments: AttachmentStore;
  history?: AppContext['history'];
};

/** The headers of a download: never rendered, sniffed or cached (docs/security.md#attachments). */
export function downloadHeaders(fileName: string, storedType: string, size: number): Record<string, string> {
  return {
    'Content-Type': servedMediaType(storedType),
    'Content-Length': String(size),
    'Content-Disposition': contentDisposition(fileName),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'private, no-store',
    'Content-Security-Policy': 'sandbox',
  };
}

function notFound(message = 'No such record.'): PlatformError {
  return new PlatformError('not_found', message, { status: 404 });
}

/** The attachment routes. */
export function attachmentRoutes(deps: AttachmentRouteDeps): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const maxBytes = deps.config.attachments.max_bytes;

  /** The DocType, the caller's access to it (after `operation` is checked) and the existing record's name. */
  const recordOf = async (
    c: Context<AppEnv>,
    operation: 'read' | 'write',
  ): Promise<{ doctype: DocTypeDefinition; access: RecordAccess; name: string }> => {
    const doctype = deps.doctypes.get(c.req.param('doctype') ?? '');
    if (!doctype)
      throw new PlatformError('unknown_doctype', 'No such DocType is installed.', { status: 404 });
    const access = await recordAccess(deps.permissions, rolesOf(c.get('principal')), doctype);
    access.require(operation);
    const name = c.req.param('name') ?? '';
    if (!(await deps.records.get(doctype, name))) throw notFound();
    return { doctype, access, name };
  };

  const userOf = (c: Context<AppEnv>) => c.get('principal')?.user ?? '';

  routes.get(ATTACHMENTS_ROUTE, async (c) => {
    const { doctype, name } = await recordOf(c, 'read');
    c.header('Cache-Control', 'no-store');
    return c.json({ data: await deps.attachments.list(doctype.name, name) });
  });

  routes.post(ATTACHMENTS_ROUTE, async (c) => {
    const declared = requestHeader(c, 'content-length');
    if (declared !== undefined && Number(declared) > maxBytes) throw attachmentTooLarge(maxBytes);
    const { doctype, name } = await recordOf(c, 'write');
    const rawName = c.req.query('filename');
    if (rawName === undefined || rawName.trim() === '') {
      throw new PlatformError('invalid_body', 'Name the file: add ?filename=<its name> to the URL.', {
        status: 400,
      });
    }
    const bytes = await readLimitedBody(c, maxBytes, () => attachmentTooLarge(maxBytes));
    if (bytes.byteLength === 0) {
      throw new PlatformError('invalid_body', 'The file is empty.', { status: 400 });
    }
    const attachment = await deps.attachments.add({
      doctype: doctype.name,
      record: name,
      fileName: sanitiseFileName(rawName),
      mediaType: declaredMediaType(requestHeader(c, 'content-type')),
      uploader: userOf(c),
      bytes,
    });
    await deps.history?.record({
      doctype: doctype.name,
      name,
      kind: 'attach',
      user: userOf(c),
      changes: [{ field: 'attachment', new: attachment.file_name }],
    });
    return c.json({ data: attachment }, 201);
  });

  routes.get(`${ATTACHMENTS_ROUTE}/:id`, async (c) => {
    const { doctype, name } = await recordOf(c, 'read');
    const attachment = await deps.attachments.get(doctype.name, name, c.req.param('id'));
    if (!attachment) throw notFound('No such attachment.');
    const bytes = await deps.attachments.content(attachment);
    if (!bytes) throw notFound('The file of this attachment is missing from the server.');
    return c.body(
      bytes as Uint8Array<ArrayBuffer>,
      200,
      downloadHeaders(attachment.file_name, attachment.media_type, bytes.byteLength),
    );
  });

  routes.delete(`${ATTACHMENTS_ROUTE}/:id`, async (c) => {
    const { doctype, access, name } = await recordOf(c, 'read');
    const attachment = await deps.attachments.get(doctype.name, name, c.req.param('id'));
    if (!attachment) throw notFound('No such attachment.');
    if (attachment.uploader !== userOf(c) && !access.permissions.write) {
      throw new PlatformError(
        'forbidden',
        'Only its uploader or whoever may change the record may remove it.',
        {
          status: 403,
        },
      );
    }
    await deps.attachments.remove(doctype.name, name, attachment.id);
    await deps.history?.record({
      doctype: doctype.name,
      name,
      kind: 'detach',
      user: userOf(c),
      changes: [{ field: 'attachment', old: attachment.file_name }],
    });
    return c.body(null, 204);
  });

  return routes;
}
