/**
 * The filter builder's model, free of React: which operators a field offers (by its type; a field flagged
 * `pii` or `encrypted` only equals / not equals, the only comparisons the data API makes on it), how a
 * condition reads on its chip, and the Refine filters a list's conditions ask for (all of them: AND).
 */

import type { CrudFilter } from '@refinedev/core';
import type { ListCondition, ListConditionOp } from '../../../contract/remote';
import { isFlagged } from '../../../protocol';
import type { DeskField } from '../../fields';
import { formatCondition } from '../../routing/route';

/** An operator a field offers, with the words the builder shows for it. */
export interface OperatorChoice {
  op: ListConditionOp;
  label: string;
}

const TEXT: readonly OperatorChoice[] = [
  { op: 'eq', label: 'equals' },
  { op: 'ne', label: 'not equals' },
  { op: 'like', label: 'contains' },
  { op: 'set', label: 'is set' },
];
const ORDERED: readonly OperatorChoice[] = [
  { op: 'eq', label: '=' },
  { op: 'ne', label: '≠' },
  { op: 'lt', label: '<' },
  { op: 'lte', label: '≤' },
  { op: 'gt', label: '>' },
  { op: 'gte', label: '≥' },
];
const SELECT: readonly OperatorChoice[] = [
  { op: 'eq', label: 'is' },
  { op: 'ne', label: 'is not' },
  { op: 'in', label: 'is one of' },
];
const IS: readonly OperatorChoice[] = [{ op: 'eq', label: 'is' }];
const FLAGGED: readonly OperatorChoice[] = [
  { op: 'eq', label: 'equals' },
  { op: 'ne', label: 'not equals' },
];

const ORDERED_TYPES: ReadonlySet<DeskField['type']> = new Set([
  'int',
  'float',
  'currency',
  'date',
  'datetime',
]);

/** The operators `field` offers, the first being the default. */
export function operatorsFor(field: DeskField): readonly OperatorChoice[] {
  if (isFlagged(field)) return FLAGGED;
  if (field.type === 'boolean' || field.type === 'link') return IS;
  if (field.type === 'select') return SELECT;
  if (ORDERED_TYPES.has(field.type)) return ORDERED;
  return TEXT;
}

/** Whether `op` needs no value (`is set`). */
export function needsNoValue(op: ListConditionOp): boolean {
  return op === 'set';
}

/**
 * The conditions that apply to `fields`: each on a known field, with an operator the field offers and a
 * value, a repeated one once. The same list is shown as chips and sent, so what the user sees is what
 * filters the rows.
 */
export function validConditions(
  conditions: readonly ListCondition[] | undefined,
  fields: readonly DeskField[],
): ListCondition[] {
  const seen = new Set<string>();
  return (conditions ?? []).filter((c) => {
    const key = formatCondition(c);
    if (seen.has(key)) return false;
    seen.add(key);
    const field = fields.find((f) => f.name === c.field);
    if (!field || !operatorsFor(field).some((o) => o.op === c.op)) return false;
    if (needsNoValue(c.op)) return true;
    return Array.isArray(c.value) ? c.value.length > 0 && c.op === 'in' : c.value !== '' && c.op !== 'in';
  });
}

/** A check's value as the URL keeps it and as the chip reads it. */
function checkWords(value: string): string {
  return value === 'true' ? 'Yes' : 'No';
}

/** The words of a chip: `Status is one of Active, Prospect`, `Email equals ada@example.com`. */
export function conditionText(
  condition: ListCondition,
  field: DeskField,
  linkTitle?: (id: string) => string | undefined,
): string {
  const label = operatorsFor(field).find((o) => o.op === condition.op)?.label ?? condition.op;
  if (needsNoValue(condition.op)) return `${field.label} ${label}`;
  const value = Array.isArray(condition.value)
    ? condition.value.join(', ')
    : field.type === 'boolean'
      ? checkWords(condition.value)
      : (linkTitle?.(condition.value) ?? condition.value);
  return `${field.label} ${label} ${value}`;
}

/**
 * Refine filters for valid conditions: `is set` is "neither null nor empty" (two filters), a check compares
 * with a boolean, a `contains` is the API's `like` on `%value%`.
 */
export function conditionFilters(
  conditions: readonly ListCondition[],
  fields: readonly DeskField[],
): CrudFilter[] {
  const filters: CrudFilter[] = [];
  for (const condition of validConditions(conditions, fields)) {
    const field = fields.find((f) => f.name === condition.field)!;
    const { op, value } = condition;
    if (op === 'set') {
      filters.push({ field: field.name, operator: 'nnull', value: null });
      filters.push({ field: field.name, operator: 'ne', value: '' });
    } else if (op === 'like') filters.push({ field: field.name, operator: 'contains', value });
    else if (field.type === 'boolean')
      filters.push({ field: field.name, operator: 'eq', value: value === 'true' });
    else filters.push({ field: field.name, operator: op, value });
  }
  return filters;
}
