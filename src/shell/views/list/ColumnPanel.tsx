/**
 * The column picker's panel: a checkbox per field the user may read, the shown ones first in their order,
 * each movable up or down, and "Default columns" to go back to the DocType's. Loaded when "Columns" is first
 * opened (docs/performance.md#the-budget).
 */
import { useLayoutEffect, useRef } from 'react';
import type { DeskField } from '../../fields';
import { adoptStyles } from '../../styles/adopt-styles';
import listPanelsCss from '../../styles/list-panels.css';

adoptStyles('list-panels', listPanelsCss);

/** Props of {@link ColumnPanel}. */
export interface ColumnPanelProps {
  id: string;
  /** The fields that may be columns. */
  fields: readonly DeskField[];
  /** The columns shown now, in order. */
  columns: readonly DeskField[];
  /** A new choice of columns; undefined for the default ones. */
  onChange(columns: string[] | undefined): void;
  onClose(): void;
}

/** Moves the item at `from` one place up (-1) or down (+1). */
function moved<T>(items: readonly T[], from: number, by: -1 | 1): T[] {
  const next = [...items];
  const to = from + by;
  if (to < 0 || to >= next.length) return next;
  [next[from], next[to]] = [next[to]!, next[from]!];
  return next;
}

/** The panel. */
export function ColumnPanel({ id, fields, columns, onChange, onClose }: ColumnPanelProps): React.JSX.Element {
  const shown = columns.map((c) => c.name);
  const hidden = fields.filter((f) => !shown.includes(f.name));
  // Focus moves into the panel as it opens (see ConditionPanel).
  const panelRef = useRef<HTMLFieldSetElement>(null);
  useLayoutEffect(
    () => panelRef.current?.querySelector<HTMLElement>('input:not(:disabled), button')?.focus(),
    [],
  );
  return (
    <fieldset
      ref={panelRef}
      id={id}
      className="desk-column-panel"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose();
      }}
    >
      <legend>Shown columns</legend>
      <ul>
        {columns.map((field, i) => (
          <li key={field.name}>
            <label>
              <input
                type="checkbox"
                checked
                // The last column stays: a list shows at least one.
                disabled={columns.length === 1}
                onChange={() => onChange(shown.filter((n) => n !== field.name))}
              />
              {field.label}
            </label>
            <button
              type="button"
              className="desk-button desk-button--small"
              aria-label={`Move ${field.label} up`}
              disabled={i === 0}
              onClick={() => onChange(moved(shown, i, -1))}
            >
              ↑
            </button>
            <button
              type="button"
              className="desk-button desk-button--small"
              aria-label={`Move ${field.label} down`}
              disabled={i === columns.length - 1}
              onClick={() => onChange(moved(shown, i, 1))}
            >
              ↓
            </button>
          </li>
        ))}
        {hidden.map((field) => (
          <li key={field.name}>
            <label>
              <input type="checkbox" checked={false} onChange={() => onChange([...shown, field.name])} />
              {field.label}
            </label>
          </li>
        ))}
      </ul>
      <button type="button" className="desk-button desk-button--link" onClick={() => onChange(undefined)}>
        Default columns
      </button>
    </fieldset>
  );
}
