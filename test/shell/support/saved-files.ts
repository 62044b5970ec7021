/**
 * jsdom has no object URLs and follows no download link: a file the Desk saves (an export) is caught where
 * the browser would get it, its `Blob` and the name the link gave it.
 */
import { vi } from 'vitest';

/** What {@link catchSavedFiles} caught. */
export interface SavedFiles {
  /** The last file saved, once one has been. */
  readonly blob: Blob | undefined;
  /** The name the download link gave it. */
  readonly name: string | undefined;
  /** Puts the link's `click` back (the object URL functions stay stubbed, as jsdom has none). */
  restore(): void;
}

/** Stubs `URL.createObjectURL` and download links' `click`, and records what is saved. */
export function catchSavedFiles(): SavedFiles {
  let blob: Blob | undefined;
  let name: string | undefined;
  Object.assign(URL, {
    createObjectURL: (file: Blob) => {
      blob = file;
      return 'blob:test';
    },
    revokeObjectURL: () => {},
  });
  const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
    this: HTMLAnchorElement,
  ) {
    name = this.download;
  });
  return {
    get blob() {
      return blob;
    },
    get name() {
      return name;
    },
    restore: () => click.mockRestore(),
  };
}
