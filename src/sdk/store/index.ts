/** Observable stores: the listener base and the snapshot shape that React's `useSyncExternalStore` reads. */

export type { StoreListener } from './subscribable';
export { SnapshotStore, Subscribable } from './subscribable';
