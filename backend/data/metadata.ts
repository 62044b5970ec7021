import type { DocTypeDefinition } from '../../src/contract/doctype';
import type { DocTypeSchema, ServiceMetadata } from '../../src/protocol';
import type { AppContext } from '../context';
import { PlatformError } from '../http/errors';

/** A DocType as the metadata endpoint and the SDK see it (no zod model). */
export function docTypeSchema(doctype: DocTypeDefinition): DocTypeSchema {
  return {
    name: doctype.name,
    app: doctype.app,
    label: doctype.label,
    titleField: doctype.titleField,
    fields: doctype.fields.map((f) => ({ ...f })),
  };
}

/**
 * `GET /api/meta/<app>` (the service's `metaUrl`): its label, its DocTypes with their fields (types, flags,
 * defaults, links) and its menus.
 * 404 `unknown_service` when the app is not installed in this process.
 */
export function serviceMetadata(ctx: Pick<AppContext, 'apps'>, service: string): ServiceMetadata {
  const app = ctx.apps.find((a) => a.name === service);
  if (!app) throw new PlatformError('unknown_service', 'No such service is installed.', { status: 404 });
  return {
    service: app.name,
    label: app.label,
    doctypes: app.doctypes.map(docTypeSchema),
    menus: app.menus.map((m) => ({ ...m })),
  };
}
