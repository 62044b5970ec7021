import type { Faker } from '@faker-js/faker';
import type { DocTypeSchema, FieldSchema } from '../../protocol';

/**
 * A value for one field, chosen from its metadata (type, options, and for text the field name, so
 * `email`, `phone`, `*_name` and `*_code` look like real data).
 */
function fieldValue(field: FieldSchema, faker: Faker): unknown {
  switch (field.type) {
    case 'email':
      return faker.internet.email();
    case 'phone':
      return faker.phone.number({ style: 'international' });
    case 'int':
      return faker.number.int({ min: 0, max: 1000 });
    case 'float':
    case 'currency':
      return faker.number.float({ min: 0, max: 10_000, fractionDigits: 2 });
    case 'boolean':
      return faker.datatype.boolean();
    case 'date':
      return faker.date.recent({ days: 365 }).toISOString().slice(0, 10);
    case 'select':
      return field.options?.length ? faker.helpers.arrayElement(field.options) : faker.lorem.word();
    case 'text':
      return faker.lorem.sentence();
    default:
      return textValue(field.name, faker);
  }
}

function textValue(name: string, faker: Faker): string {
  if (/email/.test(name)) return faker.internet.email();
  if (/phone|mobile/.test(name)) return faker.phone.number({ style: 'international' });
  if (/(^|_)(code|sku|id)$/.test(name))
    return `${faker.string.alpha({ length: 3, casing: 'upper' })}-${faker.string.numeric(8)}`;
  if (/customer|lead|person|contact|full_?name/.test(name)) return faker.person.fullName();
  if (/name$/.test(name)) return faker.commerce.productName();
  if (/source/.test(name)) return faker.helpers.arrayElement(['Website', 'Referral', 'Campaign', 'Event']);
  return faker.lorem.words(3);
}

/**
 * A create payload for a DocType: a value for every field from its metadata, then the scenario's
 * `payload_overrides` (already rendered) on top, so operators can pin or template any field.
 */
export function createPayload(
  schema: DocTypeSchema,
  faker: Faker,
  overrides?: Record<string, unknown>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of schema.fields) body[f.name] = fieldValue(f, faker);
  return overrides ? Object.assign(body, overrides) : body;
}

/**
 * An update payload: fresh values for the fields other than the title and code-like identifiers (which
 * may be unique), overrides on top.
 */
export function updatePayload(
  schema: DocTypeSchema,
  faker: Faker,
  overrides?: Record<string, unknown>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of schema.fields) {
    if (f.name === schema.titleField || /(^|_)(code|sku|id)$/.test(f.name)) continue;
    body[f.name] = fieldValue(f, faker);
  }
  if (Object.keys(body).length === 0) {
    const title = schema.fields.find((f) => f.name === schema.titleField);
    if (title) body[title.name] = fieldValue(title, faker);
  }
  return overrides ? Object.assign(body, overrides) : body;
}
