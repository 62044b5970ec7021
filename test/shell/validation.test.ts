import { describe, expect, it } from 'vitest';
import type { FieldSchema } from '../../src/protocol';
import { toPayload, validateField, validateRecord } from '../../src/shell/validation';

const field = (type: FieldSchema['type'], extra: Partial<FieldSchema> = {}): FieldSchema => ({
  name: type,
  label: type[0]!.toUpperCase() + type.slice(1),
  type,
  required: false,
  ...extra,
});

describe('validateField', () => {
  it('requires a value in required fields, except checkboxes', () => {
    expect(validateField(field('string', { required: true }), '  ')).toBe('String is required.');
    expect(validateField(field('int', { required: true }), undefined)).toBe('Int is required.');
    expect(validateField(field('boolean', { required: true }), undefined)).toBeUndefined();
    expect(validateField(field('email'), '')).toBeUndefined();
  });

  it.each([
    ['email', 'ada@', 'Email must be an email address.', 'ada@example.com'],
    ['phone', 'call me', 'Phone must be a phone number.', '+44 20 7946 0958'],
    ['int', '2.5', 'Int must be a whole number.', '-3'],
    ['float', '1,5', 'Float must be a number.', '1.5'],
    ['currency', 'ten', 'Currency must be a number.', '9.99'],
    ['date', '15/01/2025', 'Date must be a date (YYYY-MM-DD).', '2025-01-15'],
  ] as const)('checks the %s type', (type, bad, message, good) => {
    expect(validateField(field(type), bad)).toBe(message);
    expect(validateField(field(type), good)).toBeUndefined();
  });

  it('accepts only the listed options of a select', () => {
    const status = field('select', { label: 'Status', options: ['Active', 'Inactive'] });
    expect(validateField(status, 'Deleted')).toBe('Status has an unknown value.');
    expect(validateField(status, 'Active')).toBeUndefined();
  });
});

describe('validateRecord', () => {
  it('reports each invalid field by name and nothing for the valid ones', () => {
    const fields = [
      field('string', { name: 'customer_name', label: 'Customer Name', required: true }),
      field('email', { name: 'email', label: 'Email' }),
      field('int', { name: 'quantity', label: 'Quantity' }),
    ];
    expect(validateRecord(fields, { email: 'nope', quantity: '7' })).toEqual({
      customer_name: 'Customer Name is required.',
      email: 'Email must be an email address.',
    });
    expect(validateRecord(fields, { customer_name: 'Ada' })).toEqual({});
  });
});

describe('toPayload', () => {
  it('sends numbers as numbers, booleans as booleans, and leaves blank optional fields out', () => {
    const fields = [
      field('string', { name: 'item_name' }),
      field('int', { name: 'quantity' }),
      field('currency', { name: 'price' }),
      field('boolean', { name: 'active' }),
      field('email', { name: 'email' }),
    ];
    expect(toPayload(fields, { item_name: ' Anvil ', quantity: '3', price: '9.5', email: ' ' })).toEqual({
      item_name: 'Anvil',
      quantity: 3,
      price: 9.5,
      active: false,
    });
  });
});
