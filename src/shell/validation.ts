/**
 * Client-side field validation of the generic form, derived from DocType metadata. It only spares the user
 * a round trip: the backend validates every write against the DocType's zod model anyway.
 */
import type { FieldSchema } from '../protocol';

/** Field name -> message, for the fields that are invalid. */
export type FieldErrors = Record<string, string>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9 ()./-]{5,25}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** True for a value the form treats as "not filled in". */
export function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** Validates one value; returns a message, or undefined when valid. */
export function validateField(field: FieldSchema, value: unknown): string | undefined {
  if (isBlank(value))
    return field.required && field.type !== 'boolean' ? `${field.label} is required.` : undefined;
  const text = String(value).trim();
  switch (field.type) {
    case 'email':
      return EMAIL.test(text) ? undefined : `${field.label} must be an email address.`;
    case 'phone':
      return PHONE.test(text) ? undefined : `${field.label} must be a phone number.`;
    case 'int':
      return /^-?\d+$/.test(text) ? undefined : `${field.label} must be a whole number.`;
    case 'float':
    case 'currency':
      return Number.isFinite(Number(text)) ? undefined : `${field.label} must be a number.`;
    case 'date':
      return DATE.test(text) ? undefined : `${field.label} must be a date (YYYY-MM-DD).`;
    case 'select':
      return !field.options || field.options.includes(text)
        ? undefined
        : `${field.label} has an unknown value.`;
    default:
      return undefined;
  }
}

/** Validates every field of a form. */
export function validateRecord(fields: FieldSchema[], values: Record<string, unknown>): FieldErrors {
  const errors: FieldErrors = {};
  for (const field of fields) {
    const message = validateField(field, values[field.name]);
    if (message) errors[field.name] = message;
  }
  return errors;
}

/**
 * Converts form state (strings from inputs) to the JSON the data API expects: numbers for numeric types,
 * booleans as is, blank optional fields left out.
 */
export function toPayload(fields: FieldSchema[], values: Record<string, unknown>): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field.name];
    if (field.type === 'boolean') {
      payload[field.name] = Boolean(value);
      continue;
    }
    if (isBlank(value)) continue;
    const text = String(value).trim();
    payload[field.name] =
      field.type === 'int' || field.type === 'float' || field.type === 'currency' ? Number(text) : text;
  }
  return payload;
}
