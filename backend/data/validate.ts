import type { z } from 'zod';
import type { DocTypeDefinition } from '../../src/contract/doctype';
import { type FieldError, PlatformError } from '../http/errors';

const SAFE_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

function describe(
  issue: z.core.$ZodIssue,
  label: string,
  missing: boolean,
): { code: string; message: string } {
  switch (issue.code) {
    case 'invalid_type':
      return missing
        ? { code: 'required', message: `${label} is required.` }
        : { code: 'invalid_type', message: `${label} must be of type ${issue.expected}.` };
    case 'too_small':
      return {
        code: 'too_small',
        message:
          issue.origin === 'string'
            ? `${label} must have at least ${issue.minimum} character(s).`
            : `${label} must be at least ${issue.minimum}.`,
      };
    case 'too_big':
      return {
        code: 'too_big',
        message:
          issue.origin === 'string'
            ? `${label} must have at most ${issue.maximum} character(s).`
            : `${label} must be at most ${issue.maximum}.`,
      };
    case 'invalid_format':
      // A pattern of the model's own (`regex`) has no name a person would know: say what is wrong instead.
      return {
        code: 'invalid_format',
        message:
          issue.format === 'regex'
            ? `${label} is not in the expected format.`
            : `${label} is not a valid ${issue.format}.`,
      };
    case 'invalid_value':
      return {
        code: 'invalid_option',
        message: `${label} must be one of: ${issue.values.map(String).join(', ')}.`,
      };
    default:
      return { code: 'invalid', message: `${label} is invalid.` };
  }
}

/**
 * Turns zod issues into field errors that name the field and the rule, and never contain the submitted
 * value (docs/security.md#personal-data-stays-out-of-errors-and-logs): messages are composed here from the
 * schema's own limits, not taken from zod. `labels` maps field names to human labels.
 */
export function fieldErrors(
  issues: readonly z.core.$ZodIssue[],
  input: Record<string, unknown>,
  labels: Record<string, string> = {},
): FieldError[] {
  const errors: FieldError[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const field = SAFE_KEY.test(key) ? key : '(unknown)';
        errors.push({ field, code: 'unknown_field', message: 'This field does not exist.' });
      }
      continue;
    }
    const field = issue.path.map(String).join('.') || '(body)';
    const top = String(issue.path[0] ?? '');
    const label = labels[top] ?? (top || 'The body');
    errors.push({ field, ...describe(issue, label, input[top] === undefined) });
  }
  return errors;
}

/** 422 `validation_failed` with the given field errors. */
export function validationFailed(fields: FieldError[]): PlatformError {
  return new PlatformError('validation_failed', 'The request has invalid fields.', { status: 422, fields });
}

const strictModels = new WeakMap<z.ZodObject, z.ZodObject>();
/** Strict models without some fields, by model and the fields' names (few combinations: the masked ones). */
const partialModels = new WeakMap<z.ZodObject, Map<string, z.ZodObject>>();

function withoutFields(strict: z.ZodObject, fields: readonly string[]): z.ZodObject {
  const key = [...fields].sort().join('\n');
  let byFields = partialModels.get(strict);
  if (!byFields) {
    byFields = new Map();
    partialModels.set(strict, byFields);
  }
  let model = byFields.get(key);
  if (!model) {
    model = strict.omit(Object.fromEntries(fields.map((f) => [f, true])) as Record<string, true>);
    byFields.set(key, model);
  }
  return model;
}

/**
 * Whether a document of `doctype` can be validated with some fields left out (see `kept` of
 * {@link validateDocument}): not when its model has refinements of the whole object, which may look at any
 * field (zod refuses to drop fields from such a model).
 */
export function validatesWithoutFields(doctype: DocTypeDefinition): boolean {
  let known = omittable.get(doctype.model);
  if (known === undefined) {
    try {
      doctype.model.omit({});
      known = true;
    } catch {
      known = false;
    }
    omittable.set(doctype.model, known);
  }
  return known;
}
const omittable = new WeakMap<z.ZodObject, boolean>();

/**
 * Validates a document against its DocType's zod model, refusing unknown fields, and returns the parsed
 * (trimmed, defaulted) data. Throws 422 `validation_failed` with one entry per problem.
 */
export function validateDocument(
  doctype: DocTypeDefinition,
  input: Record<string, unknown>,
  kept: readonly string[] = [],
): Record<string, unknown> {
  let strict = strictModels.get(doctype.model);
  if (!strict) {
    strict = doctype.model.strict();
    strictModels.set(doctype.model, strict);
  }
  // Fields whose stored values an update keeps unopened are valid as stored: the model without them.
  const model = kept.length === 0 ? strict : withoutFields(strict, kept);
  const result = model.safeParse(input);
  if (result.success) return result.data as Record<string, unknown>;
  const labels = Object.fromEntries(doctype.fields.map((f) => [f.name, f.label]));
  throw validationFailed(fieldErrors(result.error.issues, input, labels));
}

/** Validates RPC kwargs with the method's schema; 422 `validation_failed` on failure. */
export function validateKwargs(schema: z.ZodType, input: Record<string, unknown>): unknown {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationFailed(fieldErrors(result.error.issues, input));
}
