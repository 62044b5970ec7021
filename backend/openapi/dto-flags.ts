import type { z } from 'zod';
import { DOCTYPE_MODEL } from '../../src/contract/doctype';
import { PlatformError } from '../http/errors';

/** The field flags (docs/security.md#field-flags) that are valid on DocType models only. */
export const FIELD_FLAGS = ['encrypted', 'pii'] as const;

/** A request or response body schema of a route, named for error messages and the OpenAPI components. */
export interface Dto {
  name: string;
  schema: z.ZodType;
}

/** One flag found on a field of a schema that is not a DocType model. */
export interface MisplacedFlag {
  field: string;
  flag: (typeof FIELD_FLAGS)[number];
}

interface ZodInternals {
  _zod: { def: Record<string, unknown> & { type: string } };
  meta?: () => Record<string, unknown> | undefined;
}

/** True for a zod object marked by `defineDocType` (the only schemas that may carry the flags). */
export function isDocTypeModel(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && DOCTYPE_MODEL in schema;
}

/**
 * Every `encrypted`/`pii` flag in a schema outside DocType models, with its field path (`address.email`,
 * `items[].secret`). A DocType model nested in a DTO (e.g. a response `{ data: Customer }`) is allowed.
 */
export function misplacedFlags(schema: z.ZodType, path = ''): MisplacedFlag[] {
  const found: MisplacedFlag[] = [];
  const seen = new Set<unknown>();
  const visit = (node: unknown, at: string) => {
    if (!node || typeof node !== 'object' || seen.has(node) || isDocTypeModel(node)) return;
    seen.add(node);
    const zod = node as ZodInternals;
    const meta = typeof zod.meta === 'function' ? zod.meta() : undefined;
    for (const flag of FIELD_FLAGS) if (meta?.[flag]) found.push({ field: at || '(root)', flag });
    const def = zod._zod?.def;
    if (!def) return;
    const child = (key: string) => def[key];
    switch (def.type) {
      case 'object':
        for (const [name, value] of Object.entries(child('shape') as Record<string, unknown>)) {
          visit(value, at ? `${at}.${name}` : name);
        }
        break;
      case 'array':
        visit(child('element'), `${at}[]`);
        break;
      case 'record':
        visit(child('valueType'), `${at}{}`);
        break;
      case 'union':
        for (const option of child('options') as unknown[]) visit(option, at);
        break;
      case 'intersection':
        visit(child('left'), at);
        visit(child('right'), at);
        break;
      case 'tuple':
        for (const [i, item] of (child('items') as unknown[]).entries()) visit(item, `${at}[${i}]`);
        break;
      case 'pipe':
        visit(child('in'), at);
        visit(child('out'), at);
        break;
      case 'lazy':
        visit((child('getter') as () => unknown)(), at);
        break;
      default:
        // optional, nullable, default, readonly, catch, prefault, nonoptional...: one wrapped schema
        visit(child('innerType'), at);
    }
  };
  visit(schema, path);
  return found;
}

/**
 * docs/security.md#field-flags: the flags are valid on DocType models only, and OpenAPI generation raises
 * an error for them on a request/response DTO. Throws `openapi_invalid_dto` naming the DTO and the field.
 */
export function assertNoMisplacedFlags(dto: Dto): void {
  if (isDocTypeModel(dto.schema)) return;
  const [first, ...rest] = misplacedFlags(dto.schema);
  if (!first) return;
  const more = rest.length > 0 ? ` (and ${rest.length} more)` : '';
  throw new PlatformError(
    'openapi_invalid_dto',
    `OpenAPI generation failed: field "${first.field}" of DTO "${dto.name}" carries the "${first.flag}" flag${more}, ` +
      'which is valid on DocType models only (docs/security.md#field-flags). Move the field into a DocType ' +
      'model or drop the flag; selective-mode route encryption protects a DTO instead.',
  );
}
