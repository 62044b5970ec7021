/**
 * Data API, RPC, metadata and login handlers (docs/http-api.md#doctype-data-api-and-rpc and
 * docs/security.md#auth) over the environment's in-memory store. Validation is the backend's own:
 * `parseListQuery` for list parameters, `validateDocument` (the DocType zod models) for records,
 * `validateKwargs` for RPC, `serviceMetadata` for `metaUrl`. Bodies pass the decryption rules of `readBody`,
 * so what the SDK encrypts is really decrypted. Offline there is no database: an RPC method that needs one
 * answers 501 `not_available_offline`.
 */
import { type HttpHandler, HttpResponse, http } from 'msw';
import type { AppContext } from '../../backend/context';
import { parseListQuery, STANDARD_FIELDS } from '../../backend/data/list-query';
import { serviceMetadata } from '../../backend/data/metadata';
import { validateDocument, validateKwargs } from '../../backend/data/validate';
import type { DocTypeDefinition } from '../../backend/doctypes/define-doctype';
import { PlatformError } from '../../backend/http/errors';
import type { MockEnvironment } from '../support/environment';
import { answer, readBody } from '../support/respond';

/** The mock's one user (the platform's first-start default, docs/security.md#auth). */
export const MOCK_USER = { usr: 'Administrator', pwd: 'admin' } as const;

const IGNORED_KEYS = new Set<string>([...STANDARD_FIELDS, 'doctype']);

function doctypeOf(env: MockEnvironment, name: string): DocTypeDefinition {
  const doctype = env.doctypes.get(name);
  if (!doctype) throw new PlatformError('unknown_doctype', 'No such DocType is installed.', { status: 404 });
  return doctype;
}

function objectBody(body: unknown, what: string): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new PlatformError('invalid_body', `The body must be a JSON object of ${what}.`, { status: 400 });
  }
  return body as Record<string, unknown>;
}

function documentOf(body: unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(objectBody(body, 'fields')).filter(([k]) => !IGNORED_KEYS.has(k)));
}

const notFound = () => new PlatformError('not_found', 'No such record.', { status: 404 });

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replace(/[+/=]/g, (c) => ({ '+': '-', '/': '_', '=': '' })[c]!);
}

/** A context for RPC handlers offline: the apps and DocTypes, and a database that is not there. */
function offlineContext(env: MockEnvironment): AppContext {
  const unavailable = () => {
    throw new PlatformError('not_available_offline', 'This method needs the database.', { status: 501 });
  };
  return {
    apps: env.apps,
    doctypes: env.doctypes,
    directory: env.directory,
    db: { query: unavailable, exec: unavailable, transaction: unavailable, close: async () => {} },
  } as unknown as AppContext;
}

/** Handlers of `/api/resource/*`, `/api/method/*` and `/api/meta/*` on any origin. */
export function dataHandlers(env: MockEnvironment): HttpHandler[] {
  const ctx = offlineContext(env);
  return [
    http.post('*/api/method/login', ({ request }) =>
      answer(async () => {
        const { usr, pwd } = objectBody(await readBody(env, request), 'credentials');
        if (usr !== MOCK_USER.usr || pwd !== MOCK_USER.pwd) {
          throw new PlatformError('invalid_credentials', 'Wrong user name or password.', { status: 401 });
        }
        return HttpResponse.json(
          { message: 'Logged In', csrf_token: randomToken() },
          { headers: { 'Set-Cookie': `sid=${randomToken()}; Path=/; HttpOnly; SameSite=Lax` } },
        );
      }),
    ),
    http.post('*/api/method/logout', () => HttpResponse.json({ message: 'Logged Out' })),
    http.post('*/api/method/:method', ({ request, params }) =>
      answer(async () => {
        const name = String(params.method);
        const method = env.apps.flatMap((a) => Object.entries(a.methods)).find(([n]) => n === name)?.[1];
        if (!method) throw new PlatformError('unknown_method', 'No such method.', { status: 404 });
        const { args = [], ...rest } = objectBody(await readBody(env, request), 'keyword arguments');
        if (!Array.isArray(args)) {
          throw new PlatformError('invalid_body', '"args" must be a list of positional arguments.', {
            status: 400,
          });
        }
        const kwargs = validateKwargs(method.kwargs, rest) as Record<string, unknown>;
        const message = await method.handler({ ctx, args, kwargs });
        return HttpResponse.json({ message: message ?? null });
      }),
    ),
    http.get('*/api/meta/:app', ({ params }) =>
      answer(() => HttpResponse.json(serviceMetadata(env, String(params.app)))),
    ),
    http.get('*/api/resource/:doctype', ({ request, params }) =>
      answer(() => {
        const doctype = doctypeOf(env, String(params.doctype));
        const query = parseListQuery(doctype, Object.fromEntries(new URL(request.url).searchParams));
        return HttpResponse.json(env.store.list(doctype.name, query));
      }),
    ),
    http.post('*/api/resource/:doctype', ({ request, params }) =>
      answer(async () => {
        const doctype = doctypeOf(env, String(params.doctype));
        const data = validateDocument(doctype, documentOf(await readBody(env, request)));
        return HttpResponse.json(
          { data: env.store.insert(doctype.name, doctype.namePrefix, data) },
          { status: 201 },
        );
      }),
    ),
    http.get('*/api/resource/:doctype/:name', ({ params }) =>
      answer(() => {
        const doctype = doctypeOf(env, String(params.doctype));
        const record = env.store.get(doctype.name, String(params.name));
        if (!record) throw notFound();
        return HttpResponse.json({ data: record });
      }),
    ),
    http.put('*/api/resource/:doctype/:name', ({ request, params }) =>
      answer(async () => {
        const doctype = doctypeOf(env, String(params.doctype));
        const name = String(params.name);
        const changes = documentOf(await readBody(env, request));
        const existing = env.store.get(doctype.name, name);
        if (!existing) throw notFound();
        // A partial update, as the backend does it: stored fields overlaid with the sent ones; null clears.
        const merged: Record<string, unknown> = {};
        for (const field of doctype.fields) {
          if (existing[field.name] !== undefined) merged[field.name] = existing[field.name];
        }
        for (const [key, value] of Object.entries(changes)) {
          if (value === null) delete merged[key];
          else merged[key] = value;
        }
        const record = env.store.update(doctype.name, name, validateDocument(doctype, merged));
        if (!record) throw notFound();
        return HttpResponse.json({ data: record });
      }),
    ),
    http.delete('*/api/resource/:doctype/:name', ({ params }) =>
      answer(() => {
        const doctype = doctypeOf(env, String(params.doctype));
        const record = env.store.remove(doctype.name, String(params.name));
        if (!record) throw notFound();
        return HttpResponse.json({ data: record });
      }),
    ),
  ];
}
