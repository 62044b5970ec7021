/**
 * The generic form's rules against silent loss: which fields changed, the Save shortcut, the message of a
 * Link naming no record, and the fields two versions of a record differ in.
 */
import { describe, expect, it } from 'vitest';
import type { DeskField } from '../../src/shell/fields';
import {
  changedFields,
  conflictRows,
  isSaveShortcut,
  sameValue,
  unmatchedLinkMessage,
} from '../../src/shell/form-rules';

const fields = [
  { name: 'item_name', label: 'Item Name', type: 'data' },
  { name: 'qty', label: 'Quantity', type: 'int' },
  { name: 'active', label: 'Active', type: 'boolean' },
] as DeskField[];

describe('form rules', () => {
  it('compares values as the user sees them', () => {
    expect(sameValue(undefined, '')).toBe(true);
    expect(sameValue(null, '  ')).toBe(true);
    expect(sameValue(3, '3')).toBe(true);
    expect(sameValue('a', 'b')).toBe(false);
    expect(sameValue('', 'x')).toBe(false);
    expect(sameValue(false, undefined)).toBe(true);
  });

  it('names the changed fields, and none for a form as loaded', () => {
    const loaded = { item_name: 'Anvil', qty: 3, active: true, modified: '2026-01-01T00:00:00.000Z' };
    expect(changedFields(fields, loaded, { ...loaded })).toEqual([]);
    expect(changedFields(fields, loaded, { ...loaded, qty: '3' })).toEqual([]);
    expect(changedFields(fields, loaded, { ...loaded, qty: '4', active: false })).toEqual(['qty', 'active']);
  });

  it('takes Ctrl+S and ⌘S as Save, not S alone or with Alt', () => {
    const key = (k: Partial<KeyboardEvent>) =>
      isSaveShortcut({ ctrlKey: false, metaKey: false, altKey: false, key: 's', ...k });
    expect(key({ ctrlKey: true })).toBe(true);
    expect(key({ metaKey: true, key: 'S' })).toBe(true);
    expect(key({})).toBe(false);
    expect(key({ ctrlKey: true, altKey: true })).toBe(false);
    expect(key({ ctrlKey: true, key: 'k' })).toBe(false);
  });

  it('says which text names no record and what to do', () => {
    expect(unmatchedLinkMessage({ label: 'Customer' }, 'Nobody')).toBe(
      'No record matches “Nobody”. Pick one from the list, or clear Customer.',
    );
  });

  it('lists the fields in which two versions differ', () => {
    const rows = conflictRows(
      fields,
      { item_name: 'Mine', qty: 1 },
      { item_name: 'Theirs', qty: 1, name: 'I-1' },
    );
    expect(rows.map((r) => [r.field.name, r.mine, r.theirs])).toEqual([['item_name', 'Mine', 'Theirs']]);
  });
});
