/**
 * The generic list's bulk actions: the bar shown while rows are selected (how many, Edit for who may write,
 * Delete for who may delete, Clear selection). The dialog that confirms the delete is `BulkDeleteConfirm`.
 */
import { countOf } from '../../words/plural';
import type { BulkSelection } from './use-bulk-selection';

/** Props of {@link BulkBar} and of the delete's confirmation (`BulkDeleteConfirm`). */
export interface BulkProps {
  /** The DocType's label (`Customer`). */
  label: string;
  selection: BulkSelection;
}

/** Props of {@link BulkBar}. */
export interface BulkBarProps extends BulkProps {
  /** Whether the user may delete (offers Delete). */
  canDelete: boolean;
  /** Opens the bulk edit; undefined when the user may not write (no Edit). */
  onEdit?: () => void;
}

/** The selection bar; nothing while no row is selected. */
export function BulkBar({ label, selection, canDelete, onEdit }: BulkBarProps): React.JSX.Element | null {
  if (selection.selected.size === 0) return null;
  return (
    <section className="desk-bulk" aria-label="Selection">
      <span>{countOf(selection.selected.size, label)} selected</span>
      {onEdit ? (
        <button type="button" className="desk-button" onClick={onEdit}>
          Edit
        </button>
      ) : null}
      {canDelete ? (
        <button
          type="button"
          className="desk-button desk-button--danger"
          onClick={() => selection.setConfirming(true)}
        >
          Delete
        </button>
      ) : null}
      <button
        type="button"
        className="desk-button desk-button--link"
        onClick={() => selection.setSelected(new Set())}
      >
        Clear selection
      </button>
    </section>
  );
}
