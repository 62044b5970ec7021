import { type Context, Hono } from 'hono';
import { RPC_NAME_PATTERN } from '../apps/rpc-registry';
import type { AppContext } from '../context';
import type { DocTypeDefinition } from '../doctypes/define-doctype';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { readJsonBody } from '../http/read-body';
import { parseListQuery, STANDARD_FIELDS } from './list-query';
import { serviceMetadata } from './metadata';
import { validateDocument, validateKwargs } from './validate';

/** Keys a client may send back with a document (from a previous read) that are not fields: ignored. */
const IGNORED_KEYS = new Set<string>([...STANDARD_FIELDS, 'doctype']);

function doctypeOf(ctx: AppContext, name: string): DocTypeDefinition {
  const doctype = ctx.doctypes.get(name);
  if (!doctype) throw new PlatformError('unknown_doctype', 'No such DocType is installed.', { status: 404 });
  return doctype;
}

async function documentBody(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  const body = await readJsonBody(c);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new PlatformError('invalid_body', 'The body must be a JSON object of fields.', { status: 400 });
  }
  return Object.fromEntries(Object.entries(body).filter(([k]) => !IGNORED_KEYS.has(k)));
}

function notFound(): PlatformError {
  return new PlatformError('not_found', 'No such record.', { status: 404 });
}

/**
 * DocType data API and RPC (docs/http-api.md#doctype-data-api-and-rpc, Frappe-style), under the service's
 * `apiUrl` (`/api` in MONOLITH):
 * - `GET /api/meta/:app`: ServiceMetadata;
 * - `GET /api/resource/:doctype`: a page `{ data, total }` (filters, fields, limit_start,
 *   limit_page_length, order_by; see list-query.ts);
 * - `POST /api/resource/:doctype`, `GET|PUT|DELETE /api/resource/:doctype/:name`: `{ data }`;
 * - `POST /api/method/:method`: `{ message }`.
 * Bodies are read only through `readJsonBody` (the decryption middleware's plaintext). Authentication is
 * the middleware chain's job; the principal it set is handed to RPC methods.
 */
export function dataRoutes(ctx: AppContext): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const store = ctx.records;

  routes.get('/api/meta/:app', (c) => c.json(serviceMetadata(ctx, c.req.param('app'))));

  routes.get('/api/resource/:doctype', async (c) => {
    const doctype = doctypeOf(ctx, c.req.param('doctype'));
    const query = parseListQuery(doctype, c.req.query());
    c.header('Cache-Control', 'no-store');
    return c.json(await store.list(doctype, query));
  });

  routes.post('/api/resource/:doctype', async (c) => {
    const doctype = doctypeOf(ctx, c.req.param('doctype'));
    const data = validateDocument(doctype, await documentBody(c));
    return c.json({ data: await store.insert(doctype, data) }, 201);
  });

  routes.get('/api/resource/:doctype/:name', async (c) => {
    const doctype = doctypeOf(ctx, c.req.param('doctype'));
    const record = await store.get(doctype, c.req.param('name'));
    if (!record) throw notFound();
    c.header('Cache-Control', 'no-store');
    return c.json({ data: record });
  });

  routes.put('/api/resource/:doctype/:name', async (c) => {
    const doctype = doctypeOf(ctx, c.req.param('doctype'));
    const name = c.req.param('name');
    const changes = await documentBody(c);
    const existing = await store.get(doctype, name);
    if (!existing) throw notFound();
    // A partial update: the stored fields, overlaid with the sent ones; `null` clears a field.
    const merged: Record<string, unknown> = {};
    for (const field of doctype.fields)
      if (existing[field.name] !== undefined) merged[field.name] = existing[field.name];
    for (const [key, value] of Object.entries(changes)) {
      if (value === null) delete merged[key];
      else merged[key] = value;
    }
    const record = await store.update(doctype, name, validateDocument(doctype, merged));
    if (!record) throw notFound();
    return c.json({ data: record });
  });

  routes.delete('/api/resource/:doctype/:name', async (c) => {
    const doctype = doctypeOf(ctx, c.req.param('doctype'));
    const record = await store.delete(doctype, c.req.param('name'));
    if (!record) throw notFound();
    return c.json({ data: record });
  });

  routes.post('/api/method/:method', async (c) => {
    const name = c.req.param('method');
    const method = RPC_NAME_PATTERN.test(name) ? ctx.rpc.get(name) : undefined;
    if (!method) throw new PlatformError('unknown_method', 'No such method.', { status: 404 });
    const body = await readJsonBody(c);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new PlatformError('invalid_body', 'The body must be a JSON object of keyword arguments.', {
        status: 400,
      });
    }
    const { args = [], ...rest } = body as Record<string, unknown>;
    if (!Array.isArray(args)) {
      throw new PlatformError('invalid_body', '"args" must be a list of positional arguments.', {
        status: 400,
      });
    }
    const kwargs = validateKwargs(method.kwargs, rest) as Record<string, unknown>;
    const message = await method.handler({ ctx, principal: c.get('principal'), args, kwargs });
    c.header('Cache-Control', 'no-store');
    return c.json({ message: message ?? null });
  });

  return routes;
}
