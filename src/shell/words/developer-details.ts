/**
 * The "developer details" preference: whether the Desk shows what only people who build the platform need
 * (deployment mode, service names, full DocType names, error codes). Kept per browser in `localStorage`
 * and shared live between tabs through the `storage` event.
 */
import { useSyncExternalStore } from 'react';

const STORAGE_KEY = 'desk.developer-details';
const listeners = new Set<() => void>();
// Whether the signed-in user may see the details at all (System Managers: see screen-rights.ts). The
// preference is per browser, so a user without the role never sees details another user switched on.
let allowed = true;

function storage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined; // storage blocked by the browser's privacy settings
  }
}

/** True when the developer details are switched on in this browser and the signed-in user may see them. */
export function developerDetailsOn(): boolean {
  return allowed && storage()?.getItem(STORAGE_KEY) === 'on';
}

/** Sets whether the signed-in user may see the developer details (the Desk's layout sets it per user). */
export function setDeveloperDetailsAllowed(allow: boolean): void {
  if (allowed === allow) return;
  allowed = allow;
  for (const listener of listeners) listener();
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
