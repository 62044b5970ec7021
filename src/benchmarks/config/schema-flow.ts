import { z } from 'zod';
import { captureSchema, expectSchema } from './schema-expect';
import { thresholdsSchema } from './schema-thresholds';

/**
 * The YAML of one step of a `type: flow` scenario: an endpoint call, an RPC, or one operation on a
 * DocType record, each with its own `expect:` and `capture:`. Steps run in order for one user; a value
 * captured by a step is `{{ vars.<name> }}` in any later step.
 *
 * ```yaml
 * - type: flow
 *   name: customer-lifecycle
 *   steps:
 *     - { type: doctype, name: create, doctype: crm.Customer, op: create, capture: { customer: { json: data.name } }, think_seconds: [1, 3] }
 *     - { type: doctype, name: read, doctype: crm.Customer, op: read, id: "{{ vars.customer }}" }
 *     - { type: endpoint, name: ping, method: GET, path: "/api/x?c={{ vars.customer }}" }
 * ```
 */

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

/** A pause in seconds: a number, or a uniform `[min, max]` range. */
export const thinkTime = z.union([
  z.number().min(0),
  z
    .tuple([z.number().min(0), z.number().min(0)])
    .refine(([a, b]) => a <= b, 'the range is [min, max] with min <= max'),
]);

const stepCommon = {
  /** Report name of the step; defaults to its position and operation (`2-read`). */
  name: z.string().min(1).optional(),
  expect: expectSchema.optional(),
  capture: captureSchema.optional(),
  /** The user's pause after the step succeeded, before the next one (not counted in the flow's latency). */
  think_seconds: thinkTime.optional(),
  /** Limits on this step's own metrics (nothing inherited: a step is judged only on what it sets). */
  thresholds: thresholdsSchema.optional(),
};

/** A DocType operation of a step. */
export const DOCTYPE_OPS = ['create', 'read', 'update', 'delete', 'list'] as const;

const doctypeStep = z
  .strictObject({
    type: z.literal('doctype'),
    ...stepCommon,
    doctype: z.string().regex(/^[a-z][a-z0-9_]*\.[A-Z][A-Za-z0-9]*$/, 'a DocType name is <app>.<DocType>'),
    op: z.enum(DOCTYPE_OPS),
    /** The record of a read, update or delete (usually a captured `{{ vars.<name> }}`). */
    id: z.string().min(1).optional(),
    /** Fields over the generated create or update payload. */
    payload_overrides: z.record(z.string(), z.unknown()).optional(),
    filters: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((s, ctx) => {
    const needsId = s.op === 'read' || s.op === 'update' || s.op === 'delete';
    if (needsId && s.id === undefined)
      ctx.addIssue({ code: 'custom', path: ['id'], message: `op ${s.op} needs the record's id` });
    if (!needsId && s.id !== undefined)
      ctx.addIssue({ code: 'custom', path: ['id'], message: `op ${s.op} takes no id` });
  });

const endpointStep = z.strictObject({
  type: z.literal('endpoint'),
  ...stepCommon,
  method: z
    .string()
    .transform((m) => m.toUpperCase())
    .pipe(z.enum(HTTP_METHODS)),
  path: z.string().regex(/^\//, 'a path starts with "/"'),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.record(z.string(), z.unknown()).optional(),
});

const rpcStep = z.strictObject({
  type: z.literal('rpc'),
  ...stepCommon,
  method: z
    .string()
    .regex(
      /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/,
      'an RPC method is a dotted name, e.g. crm.api.customer_count',
    ),
  args: z.array(z.unknown()).optional(),
  kwargs: z.record(z.string(), z.unknown()).optional(),
});

/** One step of a flow; `type` selects the shape. */
export const flowStepSchema = z.discriminatedUnion('type', [doctypeStep, endpointStep, rpcStep]);

/** Validated flow step. */
export type FlowStepConfig = z.output<typeof flowStepSchema>;
