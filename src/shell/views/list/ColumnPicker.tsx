/**
 * The list's column picker: "Columns" opens a panel with a checkbox per field the user may read, the shown
 * ones first in their order, each movable up or down, and "Default columns" to go back to the DocType's.
 */
import { lazy, Suspense, useId, useRef, useState } from 'react';
import type { DeskField } from '../../fields';

// The panel loads when it is first opened (docs/performance.md#the-budget).
const ColumnPanel = lazy(() =>
  import(/* webpackChunkName: "route-list-tools" */ './ColumnPanel').then((m) => ({
    default: m.ColumnPanel,
  })),
);

/** Props of {@link ColumnPicker}. */
export interface ColumnPickerProps {
  /** The fields that may be columns. */
  fields: readonly DeskField[];
  /** The columns shown now, in order. */
  columns: readonly DeskField[];
  /** A new choice of columns; undefined for the default ones. */
  onChange(columns: string[] | undefined): void;
}

/** The "Columns" button and its panel. */
export function ColumnPicker({ fields, columns, onChange }: ColumnPickerProps): React.JSX.Element {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  // Closing the panel hands focus back to its button, where the user opened it.
  const toggleRef = useRef<HTMLButtonElement>(null);
  const close = () => {
    setOpen(false);
    toggleRef.current?.focus();
  };
  return (
    <div className="desk-column-picker">
      <button
        ref={toggleRef}
        type="button"
        className="desk-button desk-button--small"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={() => setOpen(!open)}
      >
        Columns
      </button>
      {open ? (
        <Suspense fallback={null}>
          <ColumnPanel id={panelId} fields={fields} columns={columns} onChange={onChange} onClose={close} />
        </Suspense>
      ) : null}
    </div>
  );
}
