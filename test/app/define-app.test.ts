import { describe, expect, it } from 'vitest';
import { defineApp, defineDocType, defineRpcMethod, isDefinedApp, z } from '../../src/app';

const Note = defineDocType({
  name: 'notes.Note',
  label: 'Note',
  titleField: 'title',
  model: z.object({
    title: z.string().min(1).meta({ inList: true }),
    email: z.email().meta({ pii: true }).optional(),
  }),
});

describe('defineApp', () => {
  it('builds an installable app with one menu entry per DocType by default', () => {
    const count = defineRpcMethod({ description: 'n', kwargs: z.object({}), handler: () => 1 });
    const app = defineApp({
      name: 'notes',
      label: 'Notes',
      doctypes: [Note],
      methods: { 'notes.api.count': count },
    });
    expect(isDefinedApp(app)).toBe(true);
    expect(app.menus).toEqual([{ label: 'Note', doctype: 'notes.Note' }]);
    expect(app.methods['notes.api.count']).toBe(count);
    expect(Note.fields.find((f) => f.name === 'email')).toMatchObject({
      type: 'email',
      pii: true,
      required: false,
    });
  });

  it('refuses a malformed name, a foreign DocType and a foreign RPC method', () => {
    expect(() => defineApp({ name: 'Notes', label: 'N', doctypes: [] })).toThrow(/app name "Notes"/);
    expect(() => defineApp({ name: 'memo', label: 'M', doctypes: [Note] })).toThrow(
      /notes.Note does not belong/,
    );
    const m = defineRpcMethod({ description: 'x', kwargs: z.object({}), handler: () => 0 });
    expect(() =>
      defineApp({ name: 'notes', label: 'N', doctypes: [Note], methods: { 'crm.api.x': m } }),
    ).toThrow(/crm.api.x does not belong/);
  });

  it('tells an app from anything else', () => {
    expect(isDefinedApp({ name: 'x' })).toBe(false);
    expect(isDefinedApp(null)).toBe(false);
  });

  it('keeps the permissions an app declares for its DocTypes', () => {
    const rules = [{ role: 'Notes User', read: true, create: true }];
    const app = defineApp({
      name: 'notes',
      label: 'N',
      doctypes: [Note],
      permissions: { 'notes.Note': rules },
    });
    expect(app.permissions).toEqual({ 'notes.Note': rules });
    expect(defineApp({ name: 'notes', label: 'N', doctypes: [Note] }).permissions).toBeUndefined();
  });

  it('refuses rules on another app DocType, with an invalid role or an unknown operation', () => {
    const base = { name: 'notes', label: 'N', doctypes: [Note] };
    expect(() =>
      defineApp({ ...base, permissions: { 'crm.Customer': [{ role: 'Sales User', read: true }] } }),
    ).toThrow(/crm.Customer, which is not a DocType of app "notes"/);
    expect(() =>
      defineApp({ ...base, permissions: { 'notes.Note': [{ role: '1 bad', read: true }] } }),
    ).toThrow(/invalid role "1 bad"/);
    const misspelt = [{ role: 'Notes User', raed: true }] as unknown as [{ role: string }];
    expect(() => defineApp({ ...base, permissions: { 'notes.Note': misspelt } })).toThrow(
      /unknown operations: raed/,
    );
  });
});
