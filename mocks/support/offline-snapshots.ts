/**
 * Where the browser's offline backend keeps its records, users and sessions between page reloads
 * (docs/mfe-teams.md#a-teams-app-offline): one IndexedDB database of the page's origin, one entry per
 * name. A development build's reload after an edit then lands on the same record, signed in.
 */
import type { OfflineSnapshot } from './create-mock-backend';

const DATABASE = 'desk-offline';
const STORE = 'snapshots';
/** Bumped when {@link OfflineSnapshot}'s shape changes: an entry of another version is left unread. */
const VERSION = 1;

/** One kept snapshot. */
export interface SnapshotSlot {
  /** The snapshot saved last, or undefined when there is none (of this version). */
  load(): Promise<OfflineSnapshot | undefined>;
  save(snapshot: OfflineSnapshot): Promise<void>;
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function open(): Promise<IDBDatabase> {
  const req = indexedDB.open(DATABASE, 1);
  req.onupgradeneeded = () => req.result.createObjectStore(STORE);
  return request(req);
}

/** The slot `name` (e.g. the app's name) of this origin's offline database. */
export async function snapshotSlot(name: string): Promise<SnapshotSlot> {
  const db = await open();
  const store = (mode: IDBTransactionMode) => db.transaction(STORE, mode).objectStore(STORE);
  return {
    async load() {
      const kept = (await request(store('readonly').get(name))) as
        | { version: number; snapshot: OfflineSnapshot }
        | undefined;
      return kept?.version === VERSION ? kept.snapshot : undefined;
    },
    async save(snapshot) {
      await request(store('readwrite').put({ version: VERSION, snapshot }, name));
    },
  };
}
