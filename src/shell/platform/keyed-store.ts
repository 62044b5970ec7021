/**
 * A keyed cache of asynchronous loads with observable state, the shape React reads through
 * `useSyncExternalStore`: one shared in-flight load per key, explicit states, and a retry that starts clean.
 * Framework-agnostic (no React), like the SDK clients it sits next to.
 */
import { SnapshotStore } from '../../sdk/store';

/** State of one key. */
export type LoadState<V> =
  | { status: 'loading' }
  | { status: 'ready'; value: V }
  | { status: 'error'; error: unknown };

/** Immutable snapshot: key -> state; a new object after every change. */
export type KeyedSnapshot<V> = Readonly<Record<string, LoadState<V>>>;

/**
 * Loads values by key with `loader`, once per key until {@link KeyedStore.retry}.
 *
 * @example
 * const views = new KeyedStore((service) => loader.load(service, './views'));
 * views.load('crm'); views.getSnapshot().crm // { status: 'loading' } then 'ready' or 'error'
 */
export class KeyedStore<V> extends SnapshotStore<KeyedSnapshot<V>> {
  readonly #loader: (key: string) => Promise<V>;
  readonly #inflight = new Map<string, Promise<V>>();
  #states: Record<string, LoadState<V>> = {};

  constructor(loader: (key: string) => Promise<V>) {
    super();
    this.#loader = loader;
  }

  /** Starts loading `key` unless it is loading or loaded; resolves with the value (rejects on failure). */
  load(key: string): Promise<V> {
    const state = this.#states[key];
    if (state?.status === 'ready') return Promise.resolve(state.value);
    const inflight = this.#inflight.get(key);
    if (inflight) return inflight;
    if (state?.status === 'error') return Promise.reject(state.error);
    return this.#start(key);
  }

  /** Forgets a failure (or a value) of `key` and loads it again. */
  retry(key: string): Promise<V> {
    if (this.#inflight.has(key)) return this.#inflight.get(key)!;
    return this.#start(key);
  }

  /**
   * Loads a loaded `key` again while its value stays shown (no loading state): the new value replaces it,
   * a failure keeps it. A load in flight is shared; a key not loaded yet is {@link KeyedStore.load}ed.
   */
  refresh(key: string): Promise<V> {
    const inflight = this.#inflight.get(key);
    if (inflight) return inflight;
    if (this.#states[key]?.status !== 'ready') return this.load(key);
    const promise = Promise.resolve()
      .then(() => this.#loader(key))
      .then((value) => {
        this.#update(key, { status: 'ready', value });
        return value;
      })
      .finally(() => this.#inflight.delete(key));
    this.#inflight.set(key, promise);
    promise.catch(() => {});
    return promise;
  }

  /** Sets a value directly (e.g. data that arrived with another response). */
  set(key: string, value: V): void {
    this.#update(key, { status: 'ready', value });
  }

  /** The state of one key, undefined when never requested. */
  get(key: string): LoadState<V> | undefined {
    return this.#states[key];
  }

  /** Every key's state; a new object after every change. */
  protected override createSnapshot(): KeyedSnapshot<V> {
    return this.#states;
  }

  #start(key: string): Promise<V> {
    this.#update(key, { status: 'loading' });
    const promise = Promise.resolve()
      .then(() => this.#loader(key))
      .then(
        (value) => {
          this.#update(key, { status: 'ready', value });
          return value;
        },
        (error: unknown) => {
          this.#update(key, { status: 'error', error });
          throw error;
        },
      )
      .finally(() => this.#inflight.delete(key));
    this.#inflight.set(key, promise);
    // Callers that only watch the state must not see an unhandled rejection.
    promise.catch(() => {});
    return promise;
  }

  #update(key: string, state: LoadState<V>): void {
    this.#states = { ...this.#states, [key]: state };
    this.notify();
  }
}
