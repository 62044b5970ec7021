/**
 * The palette while its code loads (the first Ctrl+K of a visit): the same box, focused at once, so the
 * text typed right after the shortcut goes into the search and not into the form field that had focus.
 * The palette takes that text over when it opens.
 */
import { useLayoutEffect, useRef } from 'react';

/** What the palette opens with: the text typed so far, and the element to give focus back to on closing. */
export interface PaletteStart {
  text: string;
  returnTo: HTMLElement | null;
}

/** Props of {@link PaletteOpening}. */
export interface PaletteOpeningProps {
  /** Written as the user types: the palette reads `text` when it replaces this box. */
  start: PaletteStart;
  onClose(): void;
}

/** The search box alone, with no results yet; Escape closes it. */
export function PaletteOpening({ start, onClose }: PaletteOpeningProps): React.JSX.Element {
  const inputRef = useRef<HTMLInputElement>(null);
  // Before the next keystroke can reach the element that had focus.
  useLayoutEffect(() => inputRef.current?.focus(), []);
  return (
    <div className="desk-dialog-backdrop">
      <div className="desk-palette" role="dialog" aria-modal="true" aria-label="Search" aria-busy="true">
        <input
          ref={inputRef}
          className="desk-palette__input"
          aria-label="Search records, or go to a list"
          placeholder="Search records, or go to a list…"
          defaultValue={start.text}
          onChange={(e) => {
            start.text = e.target.value;
          }}
          onKeyDown={(e) => {
            if (e.key !== 'Escape') return;
            e.preventDefault();
            onClose();
            start.returnTo?.focus?.();
          }}
        />
      </div>
    </div>
  );
}
