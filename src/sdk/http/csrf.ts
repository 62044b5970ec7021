/**
 * The CSRF token of a cookie session (docs/security.md#auth): the login answer carries `csrf_token`, and
 * every cookie-authenticated unsafe request sends it back as `X-CSRF-Token`. The token lives in memory and,
 * when the page has one, in `sessionStorage` (per tab, gone with the tab), so a reload keeps the session
 * usable.
 */

/** Where the token is kept. */
export interface CsrfTokenStore {
  get(): string | undefined;
  set(token: string): void;
  clear(): void;
}

const STORAGE_KEY = 'framework-m.csrf-token';

interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

function sessionStorageOrUndefined(): StorageLike | undefined {
  try {
    return (globalThis as { sessionStorage?: StorageLike }).sessionStorage;
  } catch {
    return undefined; // storage blocked by the browser's privacy settings
  }
}

/** A token store in memory, mirrored to `storage` (default: `sessionStorage` when present). */
export function createCsrfTokenStore(
  storage: StorageLike | undefined = sessionStorageOrUndefined(),
): CsrfTokenStore {
  let token: string | undefined;
  return {
    get() {
      return token ?? storage?.getItem(STORAGE_KEY) ?? undefined;
    },
    set(value) {
      token = value;
      storage?.setItem(STORAGE_KEY, value);
    },
    clear() {
      token = undefined;
      storage?.removeItem(STORAGE_KEY);
    },
  };
}
