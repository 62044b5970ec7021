/**
 * Typed lifecycle hooks, the extension point of the SDK's clients (in the manner of the Module Federation
 * runtime's hook system): a client declares its events as a map from name to payload type, and listeners
 * subscribe by name. A throwing listener never breaks the operation it observes: its error is re-thrown on a
 * later microtask, where the host's global error reporting sees it.
 */

/** A map from event name to the payload the event carries. */
export type HookEvents = Record<string, unknown>;

/** A listener of one event. */
export type HookListener<T> = (payload: T) => void;

/**
 * A set of typed hooks.
 *
 * @example
 * const off = DiscoveryClient.get_instance().hooks.on('afterQuery', ({ query, result }) => log(query, result));
 * off(); // unsubscribe
 */
export class Hooks<E extends HookEvents> {
  readonly #listeners = new Map<keyof E, Set<HookListener<never>>>();

  /** Subscribes to `event`; returns the function that unsubscribes. */
  on<K extends keyof E>(event: K, listener: HookListener<E[K]>): () => void {
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    set.add(listener as HookListener<never>);
    return () => {
      set.delete(listener as HookListener<never>);
    };
  }

  /** Calls every listener of `event` with `payload`, isolating each listener's failure. */
  emit<K extends keyof E>(event: K, payload: E[K]): void {
    const set = this.#listeners.get(event);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as HookListener<E[K]>)(payload);
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }
}
