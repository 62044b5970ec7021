/**
 * What every editable form of the Desk does about unsaved edits, its own and a remote's
 * (`FormViewProps.guardLeave`, src/contract/remote.ts): its guard is registered with the window's
 * {@link leaveGuard}, so leaving with edits asks to Save, Discard or Stay, and Ctrl+S (⌘S) saves it.
 */
import type { FormLeaveGuard } from '../../contract/remote';
import { isSaveShortcut } from '../form-rules';
import { leaveGuard } from './leave-guard';

/** Registers `guard` and the Save shortcut; returns the function that removes both. */
export function guardForm(guard: FormLeaveGuard): () => void {
  const unregister = leaveGuard().register(guard);
  const onKey = (event: KeyboardEvent) => {
    if (!isSaveShortcut(event)) return;
    event.preventDefault(); // not the browser's "Save page as"
    void guard.save();
  };
  window.addEventListener('keydown', onKey);
  return () => {
    unregister();
    window.removeEventListener('keydown', onKey);
  };
}
