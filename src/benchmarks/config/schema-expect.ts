import { z } from 'zod';

/**
 * The YAML of response checks (`expect:`) and captures (`capture:`), shared by scenarios and flow steps.
 *
 * ```yaml
 * expect:
 *   status: [200, 201]            # or one status
 *   json:
 *     data.name: { exists: true }
 *     data.status: Prospect       # a scalar means { equals: Prospect }
 *     data.email: { matches: "@" }
 *     data.items: { type: array }
 *   headers:
 *     content-type: { matches: json }
 *   max_ms: 500
 * capture:
 *   customer: { json: data.name }
 *   request_id: { header: x-request-id }
 * ```
 */

/** HTTP statuses a response may have. */
export const statusList = z.array(z.int().min(100).max(599)).min(1);

const JSON_TYPES = ['string', 'number', 'boolean', 'object', 'array', 'null'] as const;

/** A regular expression given as text, refused at validation when it does not compile. */
const regexText = z.string().refine((s) => {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}, 'not a valid regular expression');

/** One assertion on a value. */
const valueCheck = z
  .strictObject({
    equals: z.unknown().optional(),
    matches: regexText.optional(),
    exists: z.boolean().optional(),
    type: z.enum(JSON_TYPES).optional(),
  })
  .refine(
    (c) => Object.values(c).some((v) => v !== undefined) || 'equals' in c,
    'give one of equals, matches, exists or type',
  );

/** A scalar is shorthand for `{ equals: <scalar> }`. */
const jsonCheck = z.union([z.string(), z.number(), z.boolean(), z.null(), valueCheck]);

/** A JSON path: `data.items[0].name`, `data.items.0.name` or `$.data.name`. */
export const jsonPath = z
  .string()
  .regex(/^(\$\.?)?[A-Za-z0-9_-]+(\[\d+\]|\.[A-Za-z0-9_-]+)*$/, 'a JSON path is like data.items[0].name');

/** The `expect:` block. */
export const expectSchema = z.strictObject({
  status: z.union([z.int().min(100).max(599), statusList]).optional(),
  json: z.record(jsonPath, jsonCheck).optional(),
  headers: z.record(z.string().min(1), z.union([z.string(), valueCheck])).optional(),
  /** Slowest acceptable response, ms (measured as the latency is). */
  max_ms: z.number().positive().optional(),
});

/** The `capture:` block: variable name -> where its value comes from. */
export const captureSchema = z.record(
  z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name is a letter or _, then letters, digits or _'),
  z.union([z.strictObject({ json: jsonPath }), z.strictObject({ header: z.string().min(1) })]),
);

/** Validated `expect:`. */
export type ExpectConfig = z.output<typeof expectSchema>;
/** Validated `capture:`. */
export type CaptureConfig = z.output<typeof captureSchema>;
