/**
 * CSV import into a DocType (docs/http-api.md#csv-import), checked like the data API's creates:
 * - `POST /api/import/:doctype/preview` `{ csv, mapping? }`: the mapping used, the counts and the problems
 *   of the rows that would fail; nothing is written;
 * - `POST /api/import/:doctype` `{ csv, mapping?, import_id? }`: runs (or resumes) the import, each row
 *   created at most once under (import id, row number); it answers the final progress, or with
 *   `Prefer: respond-async` (RFC 7240) 202 at once while the rows are imported in the background;
 * - `GET /api/import/:doctype/:id`: the progress of an import, to the user who started it.
 * Every route requires the `create` right on the DocType (403 `forbidden`).
 */

import { type Context, Hono } from 'hono';
import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { AppContext } from '../context';
import type { LinkResolver } from '../data/integrity';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { readJsonBody } from '../http/read-body';
import { recordAccess } from '../permissions/record-access';
import { rolesOf } from '../permissions/routes';
import type { ImportStore } from './import-store';
import { requestedMapping, resolveMapping } from './mapping';
import { csvTable, noSuchImport, planImport } from './plan-import';
import { RowChecker, type RowProblem } from './row-check';
import { type ImportPlan, type ImportRunDeps, runImport } from './run-import';

/** The import API's prefix. */
export const IMPORT_PREFIX = '/api/import';

/** Most row problems one answer lists (the counts always cover every row). */
export const MAX_LISTED_PROBLEMS = 1000;

const IMPORT_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** What the import routes use of the process. */
export type ImportRouteDeps = Pick<AppContext, 'records' | 'doctypes' | 'permissions' | 'log'> & {
  imports: ImportStore;
  recordObservers?: AppContext['recordObservers'];
};

/** Options of {@link importRoutes}. */
export interface ImportRouteOptions {
  /** Where Link fields to other services' DocTypes are resolved (MACROSERVICE), as for the data API. */
  remoteLinks?: LinkResolver;
  /** Rows per commit. */
  batchSize?: number;
}

import type { ImportProgress } from '../../src/protocol/import';

export type { ImportProgress };

interface ImportBody {
  csv: string;
  mapping: Record<string, string | null>;
  importId?: string;
}

async function importBody(c: Context<AppEnv>): Promise<ImportBody> {
  const body = (await readJsonBody(c)) as Record<string, unknown> | null;
  if (typeof body !== 'object' || body === null || Array.isArray(body) || typeof body.csv !== 'string') {
    throw new PlatformError('invalid_body', 'Send { "csv": "<the file\'s text>" }.', { status: 400 });
  }
  const importId = body.import_id;
  if (importId !== undefined && (typeof importId !== 'string' || !IMPORT_ID.test(importId))) {
    throw new PlatformError('invalid_body', '"import_id" must be 8 to 64 letters, digits, "-" or "_".', {
      status: 400,
    });
  }
  return { csv: body.csv, mapping: requestedMapping(body.mapping), importId };
}

/** See the module comment. */
export function importRoutes(ctx: ImportRouteDeps, options: ImportRouteOptions = {}): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const runDeps: ImportRunDeps = {
    imports: ctx.imports,
    integrity: { records: ctx.records, doctypes: ctx.doctypes, remoteLinks: options.remoteLinks },
    observers: ctx.recordObservers ?? [],
    batchSize: options.batchSize,
  };
  /** Imports running in this process, and why the last run of one stopped. */
  const running = new Map<string, Promise<void>>();
  const stoppedBy = new Map<string, { code: string; message: string }>();

  const creator = async (c: Context<AppEnv>) => {
    const doctype = ctx.doctypes.get(c.req.param('doctype') ?? '');
    if (!doctype)
      throw new PlatformError('unknown_doctype', 'No such DocType is installed.', { status: 404 });
    const access = await recordAccess(ctx.permissions, rolesOf(c.get('principal')), doctype);
    access.require('create');
    return { doctype, access, principal: c.get('principal') };
  };

  const progress = async (id: string, doctype: DocTypeDefinition): Promise<ImportProgress> => {
    const job = await ctx.imports.get(id);
    if (!job) throw noSuchImport();
    const counts = await ctx.imports.counts(id);
    const status = running.has(id) ? 'running' : job.finished ? 'done' : 'stopped';
    const error = status === 'stopped' ? stoppedBy.get(id) : undefined;
    return {
      import_id: id,
      doctype: doctype.name,
      status,
      total: job.total,
      done: counts.created + counts.failed,
      ...counts,
      errors: await ctx.imports.problems(id, MAX_LISTED_PROBLEMS),
      ...(error ? { error } : {}),
    };
  };

  const start = (plan: ImportPlan): Promise<void> => {
    const id = plan.job.id;
    stoppedBy.delete(id);
    const run = runImport(runDeps, plan)
      .catch((error: unknown) => {
        const known = error instanceof PlatformError;
        stoppedBy.set(id, {
          code: known ? error.code : 'internal_error',
          message: known ? error.message : 'The import stopped on an unexpected error.',
        });
        ctx.log(
          `import ${id} of ${plan.doctype.name} stopped: ${known ? error.code : (error as Error).name}`,
        );
      })
      .finally(() => running.delete(id));
    running.set(id, run);
    return run;
  };

  routes.post(`${IMPORT_PREFIX}/:doctype/preview`, async (c) => {
    const { doctype, access, principal } = await creator(c);
    const body = await importBody(c);
    const parsed = csvTable(body.csv);
    const mapping = resolveMapping(doctype, parsed.header, body.mapping);
    // Personal data the caller may not see is checked for stored duplicates only by the run (row-check.ts).
    const uncheckedStored = doctype.fields
      .filter((f) => f.unique && access.masked.includes(f.name))
      .map((f) => f.name);
    const checker = new RowChecker({
      integrity: runDeps.integrity,
      doctype,
      mapping,
      access,
      principal,
      uncheckedStored,
    });
    const errors: RowProblem[] = [];
    let invalid = 0;
    for (const row of parsed.rows) {
      const outcome = await checker.check(row);
      if (outcome.ok) continue;
      invalid++;
      errors.push(...outcome.problems);
    }
    c.header('Cache-Control', 'no-store');
    return c.json({
      data: {
        mapping,
        total: parsed.rows.length,
        valid: parsed.rows.length - invalid,
        invalid,
        errors: errors.slice(0, MAX_LISTED_PROBLEMS),
        ...(errors.length > MAX_LISTED_PROBLEMS ? { errors_truncated: true } : {}),
        ...(uncheckedStored.length > 0 ? { unchecked_stored: uncheckedStored } : {}),
      },
    });
  });

  routes.post(`${IMPORT_PREFIX}/:doctype`, async (c) => {
    const { doctype, access, principal } = await creator(c);
    const body = await importBody(c);
    const plan = await planImport(ctx.imports, {
      doctype,
      access,
      principal,
      csv: body.csv,
      mapping: body.mapping,
      importId: body.importId ?? crypto.randomUUID(),
    });
    const { job } = plan;
    const id = job.id;
    const run = job.finished ? undefined : (running.get(id) ?? start(plan));
    c.header('Cache-Control', 'no-store');
    if (run && /\brespond-async\b/i.test(c.req.header('prefer') ?? '')) {
      c.header('Preference-Applied', 'respond-async');
      c.header('Location', `${IMPORT_PREFIX}/${encodeURIComponent(doctype.name)}/${id}`);
      return c.json({ data: await progress(id, doctype) }, 202);
    }
    await run;
    return c.json({ data: await progress(id, doctype) });
  });

  routes.get(`${IMPORT_PREFIX}/:doctype/:id`, async (c) => {
    const { doctype, principal } = await creator(c);
    const id = c.req.param('id');
    const job = IMPORT_ID.test(id) ? await ctx.imports.get(id) : undefined;
    if (!job || job.owner !== (principal?.user ?? '') || job.doctype !== doctype.name) throw noSuchImport();
    c.header('Cache-Control', 'no-store');
    return c.json({ data: await progress(id, doctype) });
  });

  return routes;
}
