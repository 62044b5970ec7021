/**
 * The filter builder's rules, free of React: the operators each field type offers (a flagged field only
 * equals / not equals), the data-API filters the conditions become, the chips' words, and the URL form of
 * conditions and columns (a round trip keeps them; malformed ones are dropped).
 */
import { describe, expect, it } from 'vitest';
import { listQuery } from '../../../src/sdk/data/query-params';
import type { DeskField } from '../../../src/shell/fields';
import { formatListState, parseListState, parseRoute } from '../../../src/shell/routing/route';
import {
  conditionFilters,
  conditionText,
  operatorsFor,
  validConditions,
} from '../../../src/shell/views/list/conditions';
import { chosenColumns, pickableColumns } from '../../../src/shell/views/list/list-model';

const field = (name: string, type: DeskField['type'], extra: Partial<DeskField> = {}): DeskField => ({
  name,
  type,
  label: name.replace(/^\w/, (c) => c.toUpperCase()),
  required: false,
  ...extra,
});

const FIELDS: DeskField[] = [
  field('title', 'string'),
  field('notes', 'text'),
  field('qty', 'int'),
  field('price', 'currency'),
  field('due', 'date'),
  field('status', 'select', { options: ['Open', 'Closed', 'Held'] }),
  field('customer', 'link', { link: 'crm.Customer' }),
  field('urgent', 'boolean'),
  field('email', 'email', { pii: true }),
  field('secret', 'string', { encrypted: true }),
];
const ops = (name: string) => operatorsFor(FIELDS.find((f) => f.name === name)!).map((o) => o.op);

describe('the operators a field offers', () => {
  it('offers text equals / not equals / contains / is set', () => {
    expect(ops('title')).toEqual(['eq', 'ne', 'like', 'set']);
    expect(ops('notes')).toEqual(['eq', 'ne', 'like', 'set']);
  });

  it('offers numbers and dates the six comparisons', () => {
    for (const name of ['qty', 'price', 'due'])
      expect(ops(name)).toEqual(['eq', 'ne', 'lt', 'lte', 'gt', 'gte']);
    expect(operatorsFor(FIELDS[2]!).map((o) => o.label)).toEqual(['=', '≠', '<', '≤', '>', '≥']);
  });

  it('offers a select is / is not / is one of, a link and a check only is', () => {
    expect(ops('status')).toEqual(['eq', 'ne', 'in']);
    expect(ops('customer')).toEqual(['eq']);
    expect(ops('urgent')).toEqual(['eq']);
  });

  it('offers a pii or encrypted field only equals / not equals, whatever its type', () => {
    expect(ops('email')).toEqual(['eq', 'ne']);
    expect(ops('secret')).toEqual(['eq', 'ne']);
  });
});

describe('conditions as filters', () => {
  it('drops conditions on unknown fields, with an operator the field does not offer, or without a value', () => {
    const kept = validConditions(
      [
        { field: 'email', op: 'like', value: 'ada' },
        { field: 'nope', op: 'eq', value: 'x' },
        { field: 'qty', op: 'like', value: '3' },
        { field: 'title', op: 'eq', value: '' },
        { field: 'status', op: 'in', value: [] },
        { field: 'qty', op: 'gte', value: '3' },
        { field: 'qty', op: 'gte', value: '3' },
        { field: 'title', op: 'set', value: '' },
      ],
      FIELDS,
    );
    expect(kept).toEqual([
      { field: 'qty', op: 'gte', value: '3' },
      { field: 'title', op: 'set', value: '' },
    ]);
  });

  it('become the data API filters, all of them (AND)', () => {
    const filters = conditionFilters(
      [
        { field: 'title', op: 'like', value: 'print' },
        { field: 'notes', op: 'set', value: '' },
        { field: 'qty', op: 'lte', value: '5' },
        { field: 'status', op: 'in', value: ['Open', 'Held'] },
        { field: 'urgent', op: 'eq', value: 'false' },
        { field: 'email', op: 'ne', value: 'ada@example.com' },
      ],
      FIELDS,
    );
    expect(JSON.parse(String(listQuery({ filters }).filters))).toEqual([
      ['title', 'like', '%print%'],
      ['notes', '!=', null],
      ['notes', '!=', ''],
      ['qty', '<=', '5'],
      ['status', 'in', ['Open', 'Held']],
      ['urgent', '=', false],
      ['email', '!=', 'ada@example.com'],
    ]);
  });

  it('read on their chips in words', () => {
    const byName = (name: string) => FIELDS.find((f) => f.name === name)!;
    expect(conditionText({ field: 'status', op: 'in', value: ['Open', 'Held'] }, byName('status'))).toBe(
      'Status is one of Open, Held',
    );
    expect(conditionText({ field: 'urgent', op: 'eq', value: 'true' }, byName('urgent'))).toBe(
      'Urgent is Yes',
    );
    expect(conditionText({ field: 'qty', op: 'gte', value: '3' }, byName('qty'))).toBe('Qty ≥ 3');
    expect(conditionText({ field: 'notes', op: 'set', value: '' }, byName('notes'))).toBe('Notes is set');
    expect(
      conditionText({ field: 'customer', op: 'eq', value: 'CUST-1' }, byName('customer'), () => 'Acme'),
    ).toBe('Customer is Acme');
  });
});

describe('conditions and columns in the URL', () => {
  it('survive a round trip, values with colons, commas and quotes included', () => {
    const state = {
      ...parseListState(''),
      conditions: [
        { field: 'title', op: 'like' as const, value: 'a:b, "c"' },
        { field: 'status', op: 'in' as const, value: ['Open', 'On, hold'] },
        { field: 'notes', op: 'set' as const, value: '' },
      ],
      columns: ['status', 'title'],
    };
    const query = formatListState(state);
    expect(new URLSearchParams(query).getAll('filter')).toHaveLength(3);
    expect(new URLSearchParams(query).get('columns')).toBe('status,title');
    const route = parseRoute(`#/app/x.Thing?${query}`);
    expect(route).toEqual({ kind: 'list', docType: 'x.Thing', state });
  });

  it('drops malformed conditions and column names, and leaves both out when absent', () => {
    const state = parseListState(
      'filter=title:bogus:x&filter=nocolon&filter=status:in:notjson&filter=qty:gt:4&columns=a,b;c,,d',
    );
    expect(state.conditions).toEqual([{ field: 'qty', op: 'gt', value: '4' }]);
    expect(state.columns).toEqual(['a', 'd']);
    const plain = parseListState('status=Open');
    expect(plain.conditions).toBeUndefined();
    expect(plain.columns).toBeUndefined();
    expect(plain.filters).toEqual({ status: 'Open' });
  });
});

describe('the columns a user may pick', () => {
  const schema = { fields: FIELDS, titleField: 'title' };

  it('leaves personal data out for who may not read it, and keeps the chosen order', () => {
    expect(pickableColumns(schema, false).map((f) => f.name)).not.toContain('email');
    expect(pickableColumns(schema, true).map((f) => f.name)).toContain('email');
    const readable = pickableColumns(schema, false);
    expect(chosenColumns(schema, ['status', 'email', 'qty'], readable).map((f) => f.name)).toEqual([
      'status',
      'qty',
    ]);
    // Nothing chosen (or nothing readable chosen): the DocType's default columns.
    expect(chosenColumns(schema, ['email'], readable).map((f) => f.name)).toEqual([
      'title',
      'notes',
      'qty',
      'price',
    ]);
  });
});
