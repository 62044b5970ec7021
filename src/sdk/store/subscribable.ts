/**
 * The one listener mechanism every observable store of the SDK and the shell is built on (in the manner of
 * TanStack Query's `Subscribable`): a set of listeners, `subscribe` returning the function that unsubscribes,
 * and a `notify` the store calls after each change. {@link SnapshotStore} adds the immutable snapshot that
 * React's `useSyncExternalStore(store.subscribe, store.getSnapshot)` reads. Framework-agnostic: no React.
 */

/** The default listener: told that something changed, it reads the new state itself. */
export type StoreListener = () => void;

/**
 * A set of listeners with `subscribe` and a protected `notify`.
 *
 * A notification reaches the listeners subscribed when it starts, in subscription order. A listener added
 * during a notification waits for the next one; a listener removed during a notification is not called
 * once its unsubscribe has returned, even if its turn had not come yet.
 *
 * @example
 * class Counter extends Subscribable {
 *   count = 0;
 *   increment(): void {
 *     this.count++;
 *     this.notify();
 *   }
 * }
 * const counter = new Counter();
 * const off = counter.subscribe(() => console.log(counter.count));
 * counter.increment(); // logs 1
 * off();
 */
export class Subscribable<TListener extends (...args: never[]) => void = StoreListener> {
  readonly #listeners = new Set<TListener>();

  constructor() {
    // Bound once so `store.subscribe` can be handed around unattached (useSyncExternalStore does).
    this.subscribe = this.subscribe.bind(this);
  }

  /** Adds `listener`; returns the function that removes it (calling it again does nothing). */
  subscribe(listener: TListener): () => void {
    this.#listeners.add(listener);
    this.onSubscribe();
    return () => {
      if (this.#listeners.delete(listener)) this.onUnsubscribe();
    };
  }

  /** True while at least one listener is subscribed. */
  hasListeners(): boolean {
    return this.#listeners.size > 0;
  }

  /** Calls every listener with `args`; one that throws ends the round and its error reaches the caller. */
  protected notify(...args: Parameters<TListener>): void {
    for (const listener of [...this.#listeners]) {
      if (this.#listeners.has(listener)) listener(...args);
    }
  }

  /** Runs after a listener was added: a subclass starts work that only matters while observed. */
  protected onSubscribe(): void {}

  /** Runs after a listener was removed: a subclass stops that work once {@link hasListeners} is false. */
  protected onUnsubscribe(): void {}
}

/**
 * A {@link Subscribable} whose state is read as one immutable snapshot, the shape `useSyncExternalStore`
 * needs: `getSnapshot` returns the same object until the next `notify`, so React re-renders only on change.
 * The subclass builds the snapshot in `createSnapshot`, called lazily at most once between notifications.
 *
 * @example
 * class Session extends SnapshotStore<{ user?: string }> {
 *   #user: string | undefined;
 *   signIn(user: string): void {
 *     this.#user = user;
 *     this.notify(); // drops the cached snapshot, then tells the listeners
 *   }
 *   protected createSnapshot() {
 *     return { user: this.#user };
 *   }
 * }
 * const session = new Session();
 * const useSession = () => useSyncExternalStore(session.subscribe, session.getSnapshot);
 */
export abstract class SnapshotStore<TSnapshot> extends Subscribable<StoreListener> {
  /** The cached snapshot, boxed so that a snapshot of `undefined` is cached too. */
  #current: { readonly value: TSnapshot } | undefined;

  constructor() {
    super();
    this.getSnapshot = this.getSnapshot.bind(this);
  }

  /** The current snapshot: the same object until the state changes. */
  getSnapshot(): TSnapshot {
    this.#current ??= { value: this.createSnapshot() };
    return this.#current.value;
  }

  /** Drops the cached snapshot (the state changed), then calls every listener. */
  protected override notify(): void {
    this.#current = undefined;
    super.notify();
  }

  /** Builds the snapshot of the current state; it must not be mutated afterwards. */
  protected abstract createSnapshot(): TSnapshot;
}
