/**
 * The "developer details" preference: whether the Desk shows what only people who build the platform need
 * (deployment mode, service names, full DocType names, error codes). Kept per browser in `localStorage`
 * and shared live between tabs through the `storage` event.
 */
import { useSyncExternalStore } from 'react';

const STORAGE_KEY = 'desk.developer-details';
const listeners = new Set<() => void>();

function storage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined; // storage blocked by the browser's privacy settings
  }
}

/** True when the developer details are switched on in this browser. */
export function developerDetailsOn(): boolean {
  return storage()?.getItem(STORAGE_KEY) === 'on';
}

/** Switches the developer details on or off for this browser (every tab follows). */
export function setDeveloperDetails(on: boolean): void {
  const s = storage();
  if (on) s?.setItem(STORAGE_KEY, 'on');
  else s?.removeItem(STORAGE_KEY);
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key === STORAGE_KEY || event.key === null) listener();
  };
  globalThis.addEventListener?.('storage', onStorage);
  return () => {
    listeners.delete(listener);
    globalThis.removeEventListener?.('storage', onStorage);
  };
}

/** The developer-details preference, re-rendering when it changes (in this tab or another). */
export function useDeveloperDetails(): boolean {
  return useSyncExternalStore(subscribe, developerDetailsOn, () => false);
}
