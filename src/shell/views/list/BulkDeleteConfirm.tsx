/**
 * The dialog that confirms a bulk delete of the generic list's selected rows. Its code loads with the first
 * selected row (`route-list-tools`), like the bulk edit's screens.
 */
import { countOf } from '../../words/plural';
import { ConfirmDialog } from '../ConfirmDialog';
import type { BulkProps } from './BulkBar';

/** The delete's confirmation dialog; nothing until Delete was pressed. */
export function BulkDeleteConfirm({ label, selection }: BulkProps): React.JSX.Element | null {
  if (!selection.confirming) return null;
  return (
    <ConfirmDialog
      title={`Delete ${countOf(selection.selected.size, label)}?`}
      confirmLabel="Delete"
      busy={selection.deleting}
      onCancel={() => selection.setConfirming(false)}
      onConfirm={() => void selection.deleteSelected()}
    >
      <p>This cannot be undone.</p>
    </ConfirmDialog>
  );
}
