import { z } from 'zod';
import type { DocTypeDefinition } from '../../src/contract/doctype';
import { assertNoMisplacedFlags, type Dto, FIELD_FLAGS } from './dto-flags';

/** One documented operation; `request`/`response` are the DTOs of its JSON bodies. */
export interface OperationDoc {
  method: string;
  /** Hono path syntax (`/api/resource/:doctype`) or OpenAPI syntax (`{doctype}`). */
  path: string;
  summary?: string;
  request?: Dto;
  response?: Dto;
  /** Needs no principal (SECURITY: AuthMiddleware's public paths). */
  public?: boolean;
}

/** Input of {@link buildOpenApi}. */
export interface OpenApiInput {
  title: string;
  version: string;
  operations: OperationDoc[];
  doctypes: DocTypeDefinition[];
  /** Every route the app registered (`app.routes`); the ones not in `operations` are listed without bodies. */
  routes: ReadonlyArray<{ method: string; path: string }>;
}

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is free-form JSON
type Json = any;

/** Hono `:param` to OpenAPI `{param}`. */
function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)(\{[^}]*\})?/g, '{$1}');
}

/** A JSON Schema of a zod schema with the field flags spelled as OpenAPI extensions (`x-encrypted`, `x-pii`). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  delete out.$schema;
  const rename = (node: Json) => {
    if (!node || typeof node !== 'object') return;
    for (const flag of FIELD_FLAGS) {
      if (flag in node && typeof node[flag] === 'boolean') {
        node[`x-${flag}`] = node[flag];
        delete node[flag];
      }
    }
    for (const value of Object.values(node)) rename(value);
  };
  rename(out);
  return out;
}

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/**
 * Generates the OpenAPI 3.1 document: the DocType CRUD paths (one component schema per DocType model, its
 * flags as `x-encrypted`/`x-pii`), the documented operations with their DTOs, and every other registered
 * route. Throws (naming the DTO and field) when a request/response DTO that is not a DocType model carries
 * an `encrypted`/`pii` flag (docs/security.md#field-flags).
 */
export function buildOpenApi(input: OpenApiInput): Json {
  const schemas: Record<string, Json> = {
    Error: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: { code: { type: 'string' }, message: { type: 'string' }, fields: { type: 'array' } },
        },
      },
    },
  };
  const paths: Record<string, Record<string, Json>> = {};
  const add = (method: string, path: string, operation: Json) => {
    const p = toOpenApiPath(path);
    paths[p] ??= {};
    paths[p][method.toLowerCase()] ??= operation;
  };
  const errors = {
    default: { description: 'Error', content: { 'application/json': { schema: ERROR_REF } } },
  };
  const body = (ref: Json) => ({ content: { 'application/json': { schema: ref } } });

  for (const doctype of input.doctypes) {
    schemas[doctype.name] = jsonSchema(doctype.model, 'output');
    const ref = { $ref: `#/components/schemas/${doctype.name}` };
    const one = { description: 'The record', ...body({ type: 'object', properties: { data: ref } }) };
    const base = `/api/resource/${doctype.name}`;
    add('GET', base, {
      summary: `List ${doctype.label} records`,
      responses: {
        200: {
          description: 'Records',
          ...body({ type: 'object', properties: { data: { type: 'array', items: ref } } }),
        },
        ...errors,
      },
    });
    add('POST', base, {
      summary: `Create a ${doctype.label}`,
      requestBody: body(ref),
      responses: { 200: one, ...errors },
    });
    add('GET', `${base}/{name}`, { summary: `Read a ${doctype.label}`, responses: { 200: one, ...errors } });
    add('PUT', `${base}/{name}`, {
      summary: `Update a ${doctype.label}`,
      requestBody: body(ref),
      responses: { 200: one, ...errors },
    });
    add('DELETE', `${base}/{name}`, {
      summary: `Delete a ${doctype.label}`,
      responses: { 200: { description: 'Deleted' }, ...errors },
    });
  }

  for (const op of input.operations) {
    const operation: Json = { summary: op.summary, responses: { ...errors } };
    if (op.public) operation.security = [];
    if (op.request) {
      assertNoMisplacedFlags(op.request);
      schemas[op.request.name] = jsonSchema(op.request.schema, 'input');
      operation.requestBody = body({ $ref: `#/components/schemas/${op.request.name}` });
    }
    if (op.response) {
      assertNoMisplacedFlags(op.response);
      schemas[op.response.name] = jsonSchema(op.response.schema, 'output');
      operation.responses[200] = {
        description: 'OK',
        ...body({ $ref: `#/components/schemas/${op.response.name}` }),
      };
    } else operation.responses[200] = { description: 'OK' };
    add(op.method, op.path, operation);
  }

  for (const route of input.routes) {
    if (route.path.includes('*') || route.method === 'ALL') continue;
    add(route.method, route.path, { responses: { 200: { description: 'OK' }, ...errors } });
  }

  return {
    openapi: '3.1.0',
    info: { title: input.title, version: input.version },
    components: {
      schemas,
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'sid' },
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'token <api_key>:<api_secret>',
        },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
    security: [{ session: [] }, { apiKey: [] }, { bearer: [] }],
    paths,
  };
}
