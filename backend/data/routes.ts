import { type Context, Hono } from 'hono';
import type { DocTypeDefinition } from '../../src/contract/doctype';
import { flaggedFieldNames, isFlagged } from '../../src/protocol';
import { appServicesFor } from '../apps/app-services';
import { RPC_NAME_PATTERN } from '../apps/rpc-registry';
import type { AppContext } from '../context';
import { SYSTEM_USER } from '../history/history-observer';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { JSON_CONTENT_TYPE, noStoreJson, recordsJsonText } from '../http/json-response';
import { readJsonBody } from '../http/read-body';
import { clientAddress } from '../middleware/client-address';
import { timeStage } from '../middleware/server-timing';
import { requireMethod } from '../permissions/guard';
import { type RecordAccess, recordAccess } from '../permissions/record-access';
import { rolesOf } from '../permissions/routes';
import { atomicWrite } from './atomic-write';
import {
  checkLinks,
  checkNotLinked,
  checkUnique,
  duplicateRefusal,
  type IntegrityDeps,
  type LinkResolver,
} from './integrity';
import { type ListQuery, parseListQuery, STANDARD_FIELDS } from './list-query';
import { serviceMetadata } from './metadata';
import { notifyRead, type RecordObserver, type RecordReadEvent, revealedFields } from './record-observer';
import type { DocRecord, ListPage, ReadCompanion } from './records';
import { validateDocument, validateKwargs, validatesWithoutFields } from './validate';
import { partialUpdate, withKept, writeAnswer } from './write-answer';

/** Keys a client may send back with a document (from a previous read) that are not fields: ignored. */
const IGNORED_KEYS = new Set<string>([...STANDARD_FIELDS, 'doctype']);

/** What the data routes use of the process: its records, DocTypes, RPC methods, rules, apps and log. */
export type DataRouteDeps = Pick<
  AppContext,
  'records' | 'doctypes' | 'rpc' | 'permissions' | 'apps' | 'log' | 'config'
> & {
  /** Told of every read answered and write stored (history, audit); none by default. */
  readonly recordObservers?: readonly RecordObserver[];
};

function doctypeOf(ctx: Pick<DataRouteDeps, 'doctypes'>, name: string): DocTypeDefinition {
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

/** `Server-Timing` description of the permission checks (`perm`). */
const PERM_DESC = 'Permissions';

/**
 * The caller's access to a DocType (docs/permissions.md): checked before each operation, masking replies.
 * Timed as the `perm` stage of a timed request (docs/performance.md#where-a-request-spends-its-time).
 */
function accessTo(
  ctx: Pick<DataRouteDeps, 'permissions'>,
  c: Context<AppEnv>,
  doctype: DocTypeDefinition,
): Promise<RecordAccess> {
  return timeStage(c, 'perm', PERM_DESC, () =>
    recordAccess(ctx.permissions, rolesOf(c.get('principal')), doctype),
  );
}

/**
 * `work`, a call to the record store, timed as the `db` stage of a timed request
 * (docs/performance.md#where-a-request-spends-its-time). A write of `writing` that the database refused for
 * a value one of its unique indexes already holds is 409 `duplicate` (integrity.ts).
 */
async function db<T>(c: Context<AppEnv>, work: () => Promise<T>, writing?: DocTypeDefinition): Promise<T> {
  try {
    return await timeStage(c, 'db', 'Database', work);
  } catch (err) {
    throw (writing && duplicateRefusal(writing, err)) || err;
  }
}

/** `masked_fields` names what the reply masked; absent when nothing was. */
function maskedFields(access: RecordAccess): { masked_fields?: string[] } {
  return access.masked.length > 0 ? { masked_fields: access.masked } : {};
}

/**
 * Whether a list projected without `name` (`fields`) reveals flagged fields, so its records must be read
 * with their names for the audit to name them: `keep` when the projection holds a flagged field (the answer
 * then carries `name`, as personal data at rest always answers it, the value being bound to its record);
 * `drop` when only its filters (`tested`) reveal one, so the answer leaves `name` out as asked; undefined
 * when the records need no name read for them.
 */
function unnamedReveal(
  doctype: DocTypeDefinition,
  access: RecordAccess,
  fields: readonly string[] | undefined,
  tested: readonly string[],
): 'keep' | 'drop' | undefined {
  if (fields === undefined || fields.includes('name')) return undefined;
  if (revealedFields(doctype, access.masked, fields, tested).length === 0) return undefined;
  return doctype.fields.some((f) => isFlagged(f) && fields.includes(f.name)) ? 'keep' : 'drop';
}

/**
 * The `total` of a list whose filters test a flagged field its caller gets in clear: counted only as far as
 * the records it returns (with `total_is_lower_bound` when more follow), and 0 for a page past the end. The
 * count of every match would tell how many records hold the values tested (which of 500 guessed emails
 * exist) while the audit names only the records returned, and a page past the end returns none
 * (docs/permissions.md#reveals-are-audited).
 */
function shownTotal(page: ListPage, query: ListQuery): Pick<ListPage, 'total' | 'total_is_lower_bound'> {
  if (page.data.length === 0) return { total: 0 };
  // A cursor's page does not know how many came before it: it counts its own.
  const shown = (query.after === undefined ? query.start : 0) + page.data.length;
  const more = page.total_is_lower_bound === true || page.total > shown || page.next_cursor !== undefined;
  return more ? { total: shown, total_is_lower_bound: true } : { total: shown };
}

/** Options of {@link dataRoutes}. */
export interface DataRouteOptions {
  /** Where Link fields to DocTypes of other services are checked (MACROSERVICE); see integrity.ts. */
  remoteLinks?: LinkResolver;
}

/**
 * The fields of `data` whose value differs from `existing`: an update re-checks only the links it changes,
 * so a record whose linked record was deleted elsewhere can still be edited.
 */
function changedOnly(
  data: Record<string, unknown>,
  existing: Record<string, unknown>,
): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).filter(([k, v]) => existing[k] !== v));
}

/** The user a write is credited to (`modified_by`): the caller, as the history names it. */
function authorOf(c: Context<AppEnv>): string {
  return c.get('principal')?.user ?? SYSTEM_USER;
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
 * Writes keep records consistent (integrity.ts): 409 `duplicate` for a used `unique` value, 422
 * `link_not_found` for a Link to no record, 409 `linked` for deleting a record another one links to.
 * Bodies are read only through `readJsonBody` (the decryption middleware's plaintext). Authentication is
 * the middleware chain's job; RPC methods get their app's services with the principal it set. Every operation first checks
 * the principal's roles (docs/permissions.md): a refusal is 403 `forbidden`; a reader without `read_pii`
 * gets `pii` fields masked and `masked_fields` naming them.
 */
export function dataRoutes(ctx: DataRouteDeps, options: DataRouteOptions = {}): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const store = ctx.records;
  const observers = ctx.recordObservers ?? [];
  // A write with its observers' rows in one statement, where the store has it (atomic-write.ts).
  const insertAlongside = store.insertAlongside?.bind(store);
  const updateAlongside = store.updateAlongside?.bind(store);
  const deleteAlongside = store.deleteAlongside?.bind(store);
  const trustedProxies = new Set(ctx.config.server.trusted_proxies);
  /**
   * What a read told the caller: the flagged fields they receive in clear of those the answer carries
   * (`projection`, a list's `fields`; all when absent), so a search asking only for names and titles reveals
   * nothing, and of those its filters test (`tested`), whose values the records returned are known to match.
   */
  const readEvent = (
    c: Context<AppEnv>,
    doctype: DocTypeDefinition,
    access: RecordAccess,
    route: 'list' | 'get',
    names: string[],
    projection?: readonly string[],
    tested?: readonly string[],
  ): RecordReadEvent => ({
    doctype,
    names,
    route,
    principal: c.get('principal'),
    revealed: revealedFields(doctype, access.masked, projection, tested),
    clientAddress: clientAddress(c, trustedProxies),
  });
  const integrity: IntegrityDeps = {
    records: store,
    doctypes: ctx.doctypes,
    remoteLinks: options.remoteLinks,
  };

  routes.get('/api/meta/:app', (c) => c.json(serviceMetadata(ctx, c.req.param('app'))));

  routes.get('/api/resource/:doctype', async (c) => {
    const doctype = doctypeOf(ctx, c.req.param('doctype'));
    const access = await accessTo(ctx, c, doctype);
    access.require('read');
    const query = parseListQuery(doctype, c.req.query());
    access.requireQueryable([...query.filters, ...query.orderBy].map((f) => f.field));
    // A list revealing flagged fields must name its records for the audit, even projected without `name`.
    const tested = query.filters.map((f) => f.field);
    const unnamed = unnamedReveal(doctype, access, query.fields, tested);
    const read = unnamed ? { ...query, fields: [...query.fields!, 'name'] } : query;
    // The store is told what this caller gets masked, so it decrypts none of it (docs/security.md).
    const page = await db(c, () => store.list(doctype, read, { masked: access.masked }));
    if (observers.length > 0) {
      const names = page.data.map((r) => r.name);
      await notifyRead(observers, readEvent(c, doctype, access, 'list', names, query.fields, tested));
    }
    c.header('Cache-Control', 'no-store');
    const data = unnamed === 'drop' ? page.data.map(({ name: _name, ...rest }) => rest) : page.data;
    const counted =
      revealedFields(doctype, access.masked, [], tested).length > 0 ? shownTotal(page, query) : page;
    const body = { ...page, ...counted, data: access.maskAll(data), ...maskedFields(access) };
    return c.body(recordsJsonText(body, access.masked.length > 0), 200, JSON_CONTENT_TYPE);
  });

  routes.post('/api/resource/:doctype', async (c) => {
    const doctype = doctypeOf(ctx, c.req.param('doctype'));
    const access = await accessTo(ctx, c, doctype);
    access.require('create');
    const body = await documentBody(c);
    access.refuseMaskedWrite(body);
    const data = validateDocument(doctype, body);
    await checkUnique(integrity, doctype, data);
    await checkLinks(integrity, doctype, data, c.get('principal'));
    const sent = Object.keys(body);
    const answer = (stored: DocRecord) => writeAnswer(doctype, access, stored, new Set(sent));
    const author = authorOf(c);
    // What the history needs to stay no oracle for a writer who gets a field masked (history-observer.ts).
    const caller = { principal: c.get('principal'), sent, masked: access.masked };
    const record = await db(
      c,
      () =>
        atomicWrite(c, store, observers, {
          write: (s) => s.insert(doctype, data, author),
          event: (stored) => ({ kind: 'create', doctype, name: stored.name, after: stored, ...caller }),
          status: 201,
          answer,
          alone: insertAlongside && {
            event: { kind: 'create', doctype, after: data, ...caller },
            write: (alongside) => insertAlongside(doctype, () => data, author, alongside),
          },
        }),
      doctype,
    );
    return c.json(answer(record), 201);
  });

  routes.get('/api/resource/:doctype/:name', async (c) => {
    const doctype = doctypeOf(ctx, c.req.param('doctype'));
    const access = await accessTo(ctx, c, doctype);
    access.require('read');
    const name = c.req.param('name');
    // The event is known before the read (the name asked for is the name read), so an observer may write
    // with the read's own statement what it would otherwise write after it (the audit of a reveal).
    const event = observers.length > 0 ? readEvent(c, doctype, access, 'get', [name]) : undefined;
    let alongside: ReadCompanion | undefined;
    for (const observer of event ? observers : []) {
      alongside ??= observer.alongside?.(event!);
    }
    const record = await db(c, () => store.get(doctype, name, { masked: access.masked, alongside }));
    if (!record) throw notFound();
    if (event) await notifyRead(observers, event);
    c.header('Cache-Control', 'no-store');
    const body = { data: access.mask(record), ...maskedFields(access) };
    return c.body(recordsJsonText(body, access.masked.length > 0), 200, JSON_CONTENT_TYPE);
  });

  routes.put('/api/resource/:doctype/:name', async (c) => {
    const doctype = doctypeOf(ctx, c.req.param('doctype'));
    const name = c.req.param('name');
    const access = await accessTo(ctx, c, doctype);
    access.require('write');
    const changes = await documentBody(c);
    access.refuseMaskedWrite(changes);
    // A writer who gets flagged fields masked reads them masked here too: what they do not send is kept as
    // stored, never decrypted (partialUpdate). Unless the model checks the record as a whole (a refinement
    // may look at any field): then it is validated whole, as stored.
    const unopened = validatesWithoutFields(doctype) ? access.masked : [];
    const existing = await db(c, () => store.get(doctype, name, { masked: unopened }));
    if (!existing) throw notFound();
    // Optimistic concurrency (docs/http-api.md#conflicts): a client that sends back the `modified` it loaded
    // is refused when the record changed since, rather than overwriting the newer version unseen. A client
    // that sends no `modified` is not checked.
    const loaded = ((await readJsonBody(c)) as { modified?: unknown }).modified;
    if (typeof loaded === 'string' && Date.parse(loaded) < Date.parse(String(existing.modified))) {
      throw new PlatformError('conflict', 'This record was changed by someone else since you opened it.', {
        status: 409,
      });
    }
    const { data, keep } = partialUpdate(doctype, existing, changes, unopened);
    await checkUnique(integrity, doctype, data, name);
    await checkLinks(integrity, doctype, changedOnly(data, existing), c.get('principal'));
    const sent = Object.keys(changes);
    const answer = (stored: DocRecord) => writeAnswer(doctype, access, stored, new Set(sent));
    const author = authorOf(c);
    const caller = { principal: c.get('principal'), sent, masked: access.masked };
    const record = await db(
      c,
      () =>
        atomicWrite(c, store, observers, {
          write: (s) => s.update(doctype, name, data, author, keep),
          event: (stored) => ({ kind: 'update', doctype, name, before: existing, after: stored, ...caller }),
          status: 200,
          answer,
          alone: updateAlongside && {
            event: {
              kind: 'update',
              doctype,
              name,
              before: existing,
              after: withKept(data, keep),
              ...caller,
            },
            write: (alongside) => updateAlongside(doctype, name, data, author, alongside, keep),
          },
        }),
      doctype,
    );
    if (!record) throw notFound();
    return c.json(answer(record));
  });

  routes.delete('/api/resource/:doctype/:name', async (c) => {
    const doctype = doctypeOf(ctx, c.req.param('doctype'));
    const access = await accessTo(ctx, c, doctype);
    access.require('delete');
    const name = c.req.param('name');
    // Nothing of a delete needs a flagged value (its answer masks them all): none is decrypted.
    const existing = await db(c, () => store.get(doctype, name, { masked: flaggedFieldNames(doctype) }));
    if (!existing) throw notFound();
    await checkNotLinked(integrity, doctype, name);
    const answer = (stored: DocRecord) => writeAnswer(doctype, access, stored, new Set());
    const principal = c.get('principal');
    const record = await db(c, () =>
      atomicWrite(c, store, observers, {
        write: (s) => s.delete(doctype, name),
        event: (stored) => ({ kind: 'delete', doctype, name, before: stored, principal }),
        status: 200,
        answer,
        alone: deleteAlongside && {
          event: { kind: 'delete', doctype, name, before: existing, principal },
          write: (alongside) => deleteAlongside(doctype, name, alongside),
        },
      }),
    );
    if (!record) throw notFound();
    return c.json(answer(record));
  });

  routes.post('/api/method/:method', async (c) => {
    const name = c.req.param('method');
    const method = RPC_NAME_PATTERN.test(name) ? ctx.rpc.get(name) : undefined;
    if (!method) throw new PlatformError('unknown_method', 'No such method.', { status: 404 });
    timeStage(c, 'perm', PERM_DESC, () => requireMethod(ctx.permissions, rolesOf(c.get('principal')), name));
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
    // App code gets its own app's services, never the process (docs/mfe-teams.md#rpc-methods); what it
    // decrypts during the call is audited as revealed to the caller, under the method's route.
    const app = name.slice(0, name.indexOf('.'));
    const services = appServicesFor(ctx, app, c.get('principal'), {
      route: `POST /api/method/${name}`,
      clientAddress: clientAddress(c, trustedProxies),
    });
    const message = await method.handler({ ...services, ctx: services, args, kwargs });
    return noStoreJson({ message: message ?? null });
  });

  return routes;
}
