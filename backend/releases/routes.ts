import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { RELEASES_PREFIX, type ReleaseOverview, type ServiceReleasesAnswer } from '../../src/protocol';
import type { AppEnv } from '../http/env';
import { PlatformError } from '../http/errors';
import { readJsonBody } from '../http/read-body';
import { unauthorized } from '../middleware/auth';
import { forbidden } from '../permissions/guard';
import { ROLE_NAME_PATTERN, SYSTEM_MANAGER } from '../permissions/model';
import { rolesOf } from '../permissions/routes';
import { ContractFingerprintSchema } from './fingerprint';
import { personalDiscovery } from './personal-discovery';
import { isReleaseFilePath, PACKAGE_VERSION_PATTERN, RELEASE_VERSION_PATTERN } from './release-files';
import type { ReleaseService } from './release-service';

/** Path prefix of the releases API (docs/operators.md#the-releases-api). */
export const RELEASES_API = RELEASES_PREFIX;

const SERVICE = /^[a-z][a-z0-9_]{0,31}$/;
const VERSION = z.string().regex(RELEASE_VERSION_PATTERN);
const FILE_PATH = z.string().refine(isReleaseFilePath, 'Not a build file path.');
const SHA384 = z.string().regex(/^sha384-[A-Za-z0-9+/]{64}$/);
const USER_NAME = z.string().min(1).max(140);

/** Request DTOs of the releases API (no field flags: not DocType models). */
const PublishRequest = z.strictObject({
  packageVersion: z.string().regex(PACKAGE_VERSION_PATTERN),
  files: z
    .array(
      z.strictObject({
        path: FILE_PATH,
        sha384: SHA384,
        size: z
          .number()
          .int()
          .min(0)
          .max(64 * 1024 * 1024),
      }),
    )
    .min(1)
    .max(5000),
  mfManifest: z.unknown().optional(),
  fingerprint: ContractFingerprintSchema,
});
const UploadRequest = z.strictObject({
  version: VERSION,
  files: z
    .array(
      z.strictObject({
        path: FILE_PATH,
        data: z.base64(),
        /** Where this part starts, for a file sent in several requests. */
        offset: z.number().int().min(0).optional(),
      }),
    )
    .min(1)
    .max(5000),
});
const PromoteRequest = z.strictObject({ version: VERSION, force: z.boolean().optional() });
const RollbackRequest = z.strictObject({ force: z.boolean().optional() });
const CanaryRequest = z.strictObject({
  version: VERSION.nullable(),
  percent: z.number().int().min(0).max(100),
  force: z.boolean().optional(),
});
const PinRequest = z
  .strictObject({
    version: VERSION.nullable(),
    user: USER_NAME.optional(),
    role: z.string().regex(ROLE_NAME_PATTERN).optional(),
  })
  .refine((b) => (b.user === undefined) !== (b.role === undefined), 'Name either a user or a role.');

async function body<T>(c: Context<AppEnv>, schema: z.ZodType<T>): Promise<T> {
  const parsed = schema.safeParse(await readJsonBody(c));
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((i) => ({
    field: i.path.join('.') || '(body)',
    code: i.code,
    message: i.message,
  }));
  throw new PlatformError('validation_failed', 'The request body is not valid.', { status: 400, fields });
}

function serviceOf(c: Context<AppEnv>): string {
  const service = c.req.param('service') ?? '';
  if (!SERVICE.test(service)) {
    throw new PlatformError('unknown_service', 'No installed app has this name.', { status: 404 });
  }
  return service;
}

/**
 * The releases API (docs/operators.md#the-releases-api), for System Managers (a session or an API key of
 * one); every answer is `{ data }`, `Cache-Control: no-store`:
 * Mounted before the discovery routes, it also hands each user the release chosen for them
 * ({@link personalDiscovery}).
 * - `GET /api/releases`: each installed service with releases, its live and canary release and how many
 *   releases and pins it has;
 * - `GET /api/releases/<service>`: channel, pins, releases and history;
 * - `POST .../publish` `{ packageVersion, files: [{ path, sha384, size }], mfManifest?, fingerprint }` ->
 *   `{ version, state, missing }`; `POST .../upload` `{ version, files: [{ path, data, offset? }] }` (base64;
 *   `offset` for a part of a file too large for one request) stores files until none is missing, which
 *   publishes the release;
 * - `POST .../promote` `{ version, force? }`, `POST .../rollback` `{ force? }` (409 `contract_incompatible`
 *   with the differences as `fields`, unless forced), `POST .../canary` `{ version, percent, force? }`,
 *   `POST .../pin` `{ version | null, user | role }`.
 */
export function releaseRoutes(releases: ReleaseService): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.use(`${RELEASES_API}/*`, async (c, next) => {
    const principal = c.get('principal');
    if (!principal) throw unauthorized();
    if (!rolesOf(principal).includes(SYSTEM_MANAGER)) throw forbidden('manage', 'releases');
    c.header('Cache-Control', 'no-store');
    await next();
  });
  routes.use('/api/gateway/*', personalDiscovery(releases));
  const actor = (c: Context<AppEnv>) => ({ user: c.get('principal')?.user ?? '' });

  routes.get(RELEASES_API, async (c) => {
    // Typed as the wire contract, so the answer cannot drift from what the Desk reads.
    const data: ReleaseOverview[] = await releases.overview();
    return c.json({ data });
  });

  routes.get(`${RELEASES_API}/:service`, async (c) => {
    const data: ServiceReleasesAnswer = await releases.list(serviceOf(c));
    return c.json({ data });
  });

  routes.post(`${RELEASES_API}/:service/publish`, async (c) => {
    const service = serviceOf(c);
    const request = await body(c, PublishRequest);
    const answer = await releases.stage(
      service,
      { ...request, mfManifest: request.mfManifest ?? null },
      actor(c),
    );
    return c.json({ data: answer });
  });

  routes.post(`${RELEASES_API}/:service/upload`, async (c) => {
    const service = serviceOf(c);
    const { version, files } = await body(c, UploadRequest);
    const decoded = files.map((f) => ({
      ...(f.offset === undefined ? {} : { offset: f.offset }),
      path: f.path,
      bytes: new Uint8Array(Buffer.from(f.data, 'base64')),
    }));
    return c.json({ data: await releases.upload(service, version, decoded, actor(c)) });
  });

  routes.post(`${RELEASES_API}/:service/promote`, async (c) => {
    const service = serviceOf(c);
    const { version, force } = await body(c, PromoteRequest);
    return c.json({ data: await releases.promote(service, version, { force }, actor(c)) });
  });

  routes.post(`${RELEASES_API}/:service/rollback`, async (c) => {
    const service = serviceOf(c);
    const { force } = await body(c, RollbackRequest);
    return c.json({ data: await releases.rollback(service, { force }, actor(c)) });
  });

  routes.post(`${RELEASES_API}/:service/canary`, async (c) => {
    const service = serviceOf(c);
    const { version, percent, force } = await body(c, CanaryRequest);
    return c.json({ data: await releases.canary(service, version, percent, { force }, actor(c)) });
  });

  routes.post(`${RELEASES_API}/:service/pin`, async (c) => {
    const service = serviceOf(c);
    const { version, user, role } = await body(c, PinRequest);
    const target =
      user !== undefined
        ? { kind: 'user' as const, subject: user }
        : { kind: 'role' as const, subject: role! };
    return c.json({ data: await releases.pin(service, target, version, actor(c)) });
  });

  return routes;
}
