/**
 * The Desk's colour theme: the system's setting (`prefers-color-scheme`) by default, or light or dark as the
 * user chose in the header. The choice is kept per browser in `localStorage` and shows as `data-theme` on
 * the root element, which the stylesheet reads; "system" leaves the attribute off.
 */
/** What the user chose. */
export type ThemeChoice = 'system' | 'light' | 'dark';

/** The choices, in the order the header offers them. */
export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];

const STORAGE_KEY = 'desk.theme';
const listeners = new Set<() => void>();

function storage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined; // storage blocked by the browser's privacy settings
  }
}

/** The stored choice; anything unknown is "system". */
export function themeChoice(): ThemeChoice {
  const stored = storage()?.getItem(STORAGE_KEY);
  return stored === 'light' || stored === 'dark' ? stored : 'system';
}

/** Shows `choice` on `root` (the document's element): `data-theme`, or none for the system's setting. */
export function applyTheme(choice: ThemeChoice, root: HTMLElement = document.documentElement): void {
  if (choice === 'system') delete root.dataset.theme;
  else root.dataset.theme = choice;
}

/** Stores and applies a choice (every tab follows through the `storage` event). */
export function setThemeChoice(choice: ThemeChoice): void {
  const s = storage();
  if (choice === 'system') s?.removeItem(STORAGE_KEY);
  else s?.setItem(STORAGE_KEY, choice);
  applyTheme(choice);
  for (const listener of listeners) listener();
}

/** Calls `listener` when the choice changes, here or in another tab; returns the unsubscribe. */
export function subscribeTheme(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key !== STORAGE_KEY && event.key !== null) return;
    applyTheme(themeChoice());
    listener();
  };
  globalThis.addEventListener?.('storage', onStorage);
  return () => {
    listeners.delete(listener);
    globalThis.removeEventListener?.('storage', onStorage);
  };
}
