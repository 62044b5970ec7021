import { Hono } from 'hono';
import { z } from 'zod';
import { AUTH_OPERATIONS } from '../auth/openapi';
import type { AppContext } from '../context';
import type { AppEnv } from '../http/env';
import { buildOpenApi, type OperationDoc } from './build-openapi';

/** Path of the generated OpenAPI document (public). */
export const OPENAPI_PATH = '/api/openapi.json';

const SECURITY_OPERATIONS: OperationDoc[] = [
  { method: 'GET', path: '/api/v1/security/config', summary: 'Payload-encryption config', public: true },
  { method: 'GET', path: '/api/v1/security/jwks', summary: 'Public encryption keys (JWKS)', public: true },
];

/**
 * The RPC methods of the installed apps, each with its kwargs schema as the request DTO and, when it declares
 * `returns`, `{ message: <returns> }` as the response DTO (the envelope every method answers in).
 */
function rpcOperations(ctx: Pick<AppContext, 'rpc'>): OperationDoc[] {
  return ctx.rpc.list().map((name) => {
    const method = ctx.rpc.get(name)!;
    return {
      method: 'POST',
      path: `/api/method/${name}`,
      summary: method.description,
      request: { name: `${name} kwargs`, schema: method.kwargs },
      ...(method.returns
        ? { response: { name: `${name} response`, schema: z.object({ message: method.returns }) } }
        : {}),
    };
  });
}

/** What {@link openapiRoutes} reads: the RPC methods and DocTypes the document lists. */
export type OpenapiRouteDeps = Pick<AppContext, 'rpc' | 'doctypes'>;

/**
 * `GET /api/openapi.json`, generated once from the app's registered routes, the auth and RPC DTOs and the
 * DocType models. Generation runs when the app is built, so a DTO carrying an `encrypted`/`pii` flag stops
 * the start with an error naming the DTO and field (docs/security.md#field-flags).
 *
 * @param routes the app's registered routes (`app.routes`), read after every route group is mounted.
 */
export function openapiRoutes(
  ctx: OpenapiRouteDeps,
  routes: ReadonlyArray<{ method: string; path: string }>,
) {
  const document = buildOpenApi({
    title: 'Desk platform',
    version: 'v1',
    operations: [...SECURITY_OPERATIONS, ...AUTH_OPERATIONS, ...rpcOperations(ctx)],
    doctypes: ctx.doctypes.list(),
    routes,
  });
  const text = JSON.stringify(document);
  const app = new Hono<AppEnv>();
  app.get(OPENAPI_PATH, (c) => {
    c.header('Content-Type', 'application/json; charset=UTF-8');
    c.header('Cache-Control', 'no-cache');
    return c.body(text);
  });
  return app;
}
