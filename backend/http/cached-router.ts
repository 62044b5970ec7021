import type { Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';

/** Distinct method and path pairs remembered; past it the memory starts over (a scan of many paths). */
const MAX_ENTRIES = 1_000;

/**
 * Hono's default router (the first of RegExpRouter and TrieRouter that accepts every route) with its answers
 * remembered per method and path. Every path has the security chain and its route to match, and the
 * same few paths are asked for again and again, so matching them each time is wasted work. A match result
 * depends only on the routes, which are fixed once the first request is matched, and on the method and
 * path, which form the key; Hono only reads it.
 */
export class CachedRouter<T> implements Router<T> {
  readonly name = 'CachedRouter';
  readonly #router: Router<T> = new SmartRouter<T>({ routers: [new RegExpRouter(), new TrieRouter()] });
  /** Per method, per path (two levels, so a lookup builds no key string). */
  readonly #results = new Map<string, Map<string, Result<T>>>();
  #size = 0;

  add(method: string, path: string, handler: T): void {
    this.#results.clear();
    this.#size = 0;
    this.#router.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    let result = this.#results.get(method)?.get(path);
    if (result === undefined) {
      result = this.#router.match(method, path);
      if (this.#size >= MAX_ENTRIES) {
        this.#results.clear();
        this.#size = 0;
      }
      let byPath = this.#results.get(method);
      if (byPath === undefined) {
        byPath = new Map();
        this.#results.set(method, byPath);
      }
      byPath.set(path, result);
      this.#size++;
    }
    return result;
  }
}
