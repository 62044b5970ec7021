/**
 * A modal confirmation (role=alertdialog) for actions that cannot be undone, such as deleting records.
 * Focus moves to the safe choice (Cancel) when it opens, stays inside while it is open (Tab wraps), Escape
 * cancels, and focus returns where it was when it closes.
 */
import { type ReactNode, useId, useLayoutEffect, useRef } from 'react';

/** Props of {@link ConfirmDialog}. */
export interface ConfirmDialogProps {
  title: string;
  children?: ReactNode;
  /** Label of the confirming button, e.g. "Delete". */
  confirmLabel: string;
  /** True while the confirmed action runs (both buttons disabled). */
  busy?: boolean;
  /** Label of the safe choice; default "Cancel". */
  cancelLabel?: string;
  /** `primary` for a confirmation that keeps work (Save); default `danger`. */
  confirmTone?: 'danger' | 'primary';
  /** A third choice between the safe one and the confirmation (e.g. Discard). */
  secondary?: { label: string; onClick(): void };
  onConfirm(): void;
  onCancel(): void;
}

/** The dialog; render it only while it should be open. */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  busy,
  cancelLabel = 'Cancel',
  confirmTone = 'danger',
  secondary,
  onConfirm,
  onCancel,
}: ConfirmDialogProps): React.JSX.Element {
  const titleId = useId();
  const bodyId = useId();
  const dialogRef = useRef<HTMLDivElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);

  // A layout effect, not a passive one: focus moves in the same commit that opens or closes the dialog. A
  // passive cleanup runs later, and could pull focus back from a field the user has already moved into.
  useLayoutEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    cancelRef.current?.focus();
    return () => previous?.focus?.();
  }, []);

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      if (!busy) onCancel();
      return;
    }
    if (event.key !== 'Tab') return;
    const focusable = dialogRef.current?.querySelectorAll<HTMLElement>('button:not(:disabled)');
    if (!focusable || focusable.length === 0) return;
    const first = focusable[0]!;
    const last = focusable[focusable.length - 1]!;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  return (
    <div className="desk-dialog-backdrop">
      <div
        ref={dialogRef}
        className="desk-dialog"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={children ? bodyId : undefined}
        onKeyDown={onKeyDown}
      >
        <h2 id={titleId} className="desk-dialog__title">
          {title}
        </h2>
        {children ? (
          <div id={bodyId} className="desk-dialog__body">
            {children}
          </div>
        ) : null}
        <div className="desk-actions desk-dialog__actions">
          <button ref={cancelRef} type="button" className="desk-button" onClick={onCancel} disabled={busy}>
            {cancelLabel}
          </button>
          {secondary ? (
            <button type="button" className="desk-button" onClick={secondary.onClick} disabled={busy}>
              {secondary.label}
            </button>
          ) : null}
          <button
            type="button"
            className={`desk-button desk-button--${confirmTone}`}
            onClick={onConfirm}
            disabled={busy}
          >
            {busy ? 'Working…' : confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}
