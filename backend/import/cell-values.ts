/**
 * A CSV cell as the value the data API would receive for its field. Text stays text; numbers and booleans
 * are read from their usual spellings, and a cell that is not one is passed on as text, so the DocType's
 * own model refuses it with the data API's code (`invalid_type`) rather than a rule of the import's own.
 */

import type { DocTypeField } from '../../src/contract/doctype';
import { unguardedCell } from '../../src/protocol/csv';

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const TRUE_WORDS = new Set(['yes', 'true', '1']);
const FALSE_WORDS = new Set(['no', 'false', '0']);

/**
 * The value of `cell` for `field`; undefined for an empty cell (the field is left out: its default applies,
 * or `required` is reported). The export's formula guard is undone, so an exported file imports as it was.
 */
export function cellValue(field: DocTypeField, cell: string): unknown {
  const text = unguardedCell(cell);
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  switch (field.type) {
    case 'int':
    case 'float':
    case 'currency':
      return NUMBER.test(trimmed) ? Number(trimmed) : text;
    case 'boolean': {
      const word = trimmed.toLowerCase();
      if (TRUE_WORDS.has(word)) return true;
      if (FALSE_WORDS.has(word)) return false;
      return text;
    }
    default:
      return text;
  }
}
