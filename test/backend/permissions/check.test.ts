import { describe, expect, it } from 'vitest';
import { effectivePermissions, isAllowed, mayCallMethod } from '../../../backend/permissions/check';
import {
  maskableFields,
  maskedValuesIn,
  maskRecord,
  maskRecords,
  PII_MASK,
} from '../../../backend/permissions/mask';
import { SYSTEM_MANAGER } from '../../../backend/permissions/model';

const rules = [
  { role: 'Sales User', read: true, create: true, write: true },
  { role: 'Sales Manager', read: true, create: true, write: true, delete: true, read_pii: true },
];

describe('effectivePermissions', () => {
  it('grants the union of the rules of the roles held', () => {
    expect(effectivePermissions(['Sales User'], rules)).toEqual({
      read: true,
      create: true,
      write: true,
      delete: false,
      read_pii: false,
    });
    expect(effectivePermissions(['Sales User', 'Sales Manager'], rules).delete).toBe(true);
  });

  it('grants nothing to a role without a rule', () => {
    expect(effectivePermissions(['Stock User'], rules)).toEqual({
      read: false,
      create: false,
      write: false,
      delete: false,
      read_pii: false,
    });
  });

  it('grants everything to System Manager, even with no rules', () => {
    expect(Object.values(effectivePermissions([SYSTEM_MANAGER], []))).toEqual([true, true, true, true, true]);
  });

  it('never grants read_pii without read', () => {
    expect(effectivePermissions(['X'], [{ role: 'X', read_pii: true }]).read_pii).toBe(false);
  });

  it('isAllowed answers one operation', () => {
    expect(isAllowed(['Sales User'], rules, 'read')).toBe(true);
    expect(isAllowed(['Sales User'], rules, 'delete')).toBe(false);
  });
});

describe('mayCallMethod', () => {
  it('allows a declared role and System Manager; a method without roles is closed', () => {
    expect(mayCallMethod(['Sales User'], ['Sales User'])).toBe(true);
    expect(mayCallMethod(['Stock User'], ['Sales User'])).toBe(false);
    expect(mayCallMethod(['Stock User'], undefined)).toBe(false);
    expect(mayCallMethod([SYSTEM_MANAGER], undefined)).toBe(true);
  });
});

describe('masking', () => {
  const customer = {
    name: 'crm.Customer',
    fields: [{ name: 'customer_name' }, { name: 'email', pii: true }, { name: 'phone', pii: true }],
  };

  it('replaces present pii values with the fixed mask and leaves absent ones absent', () => {
    const fields = maskableFields(customer);
    expect(fields).toEqual(['email', 'phone']);
    const masked = maskRecord({ name: 'CUST-1', customer_name: 'Ada', email: 'ada@example.com' }, fields);
    expect(masked).toEqual({ name: 'CUST-1', customer_name: 'Ada', email: PII_MASK });
    expect(maskRecords([{ email: 'a@b.c' }], fields)).toEqual([{ email: PII_MASK }]);
  });

  it('masks an encrypted field as a pii one, and refuses the mask sent back into it', () => {
    const patient = {
      name: 'clinic.Patient',
      fields: [{ name: 'ward' }, { name: 'notes', encrypted: true }],
    };
    expect(maskableFields(patient)).toEqual(['notes']);
    expect(maskedValuesIn({ notes: PII_MASK, ward: PII_MASK }, patient)).toEqual(['notes']);
  });

  it('finds a mask sent back in a write body', () => {
    expect(maskedValuesIn({ email: PII_MASK, customer_name: PII_MASK }, customer)).toEqual(['email']);
    expect(maskedValuesIn({ email: 'ada@example.com' }, customer)).toEqual([]);
  });
});

describe('recordAccess', async () => {
  const { recordAccess } = await import('../../../backend/permissions/record-access');
  const { effectivePermissions } = await import('../../../backend/permissions/check');
  const customer = {
    name: 'crm.Customer',
    fields: [{ name: 'customer_name' }, { name: 'email', pii: true }],
  };
  const service = {
    permissions: async (roles: readonly string[]) => effectivePermissions(roles, rules),
  };

  it('masks for a reader without read_pii and refuses filters on masked fields and writes of the mask', async () => {
    const access = await recordAccess(service, ['Sales User'], customer);
    expect(access.masked).toEqual(['email']);
    expect(access.mask({ email: 'a@b.c', customer_name: 'Ada' })).toEqual({
      email: PII_MASK,
      customer_name: 'Ada',
    });
    expect(() => access.requireQueryable(['customer_name'])).not.toThrow();
    expect(() => access.requireQueryable(['email'])).toThrow(
      'You may not read personal data of crm.Customer.',
    );
    expect(() => access.refuseMaskedWrite({ email: PII_MASK })).toThrow(
      expect.objectContaining({ code: 'masked_value' }),
    );
    expect(() => access.require('delete')).toThrow('You may not delete crm.Customer.');
  });

  it('masks nothing for a reader with read_pii', async () => {
    const access = await recordAccess(service, ['Sales Manager'], customer);
    expect(access.masked).toEqual([]);
    expect(access.mask({ email: 'a@b.c' })).toEqual({ email: 'a@b.c' });
  });
});
