/**
 * The question asked when the user leaves a form with unsaved changes (routing/leave-guard.ts): Save (then
 * go), Discard (go without the edits) or Stay (the safe choice, focused first; Escape chooses it too).
 */
import { useSyncExternalStore } from 'react';
import { leaveGuard } from '../routing/leave-guard';
import { ConfirmDialog } from './ConfirmDialog';

/** Shown while a route change is held; nothing otherwise. */
export function LeaveDialog(): React.JSX.Element | null {
  const store = leaveGuard();
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot);
  if (state.pending === undefined) return null;
  return (
    <ConfirmDialog
      title="Leave without saving?"
      cancelLabel="Stay"
      confirmLabel="Save"
      confirmTone="primary"
      secondary={{ label: 'Discard changes', onClick: () => store.discard() }}
      busy={state.saving}
      onCancel={() => store.stay()}
      onConfirm={() => void store.save()}
    >
      <p>This form has changes that are not saved yet.</p>
    </ConfirmDialog>
  );
}
