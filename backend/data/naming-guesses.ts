/**
 * What a process knows of its naming series, for stores that guess a new record's name instead of taking
 * it first (see `DbRecordStore.insertNamed`): the counter each prefix had after this process's last use of
 * it, and the queue of guessed writes of each prefix sent outside a transaction.
 */
export class NamingGuesses {
  readonly #last = new Map<string, number>();
  readonly #queues = new Map<string, Waiting<unknown, unknown>[]>();

  /** The counter `prefix` had after this process last used it; undefined before the first use. */
  last(prefix: string): number | undefined {
    return this.#last.get(prefix);
  }

  /** Records that this process's write left `prefix` at `counter`. */
  took(prefix: string, counter: number): void {
    this.#last.set(prefix, counter);
  }

  /**
   * Sends `item` in the next guessed statement of `prefix` and answers what `send` gave for it. A write
   * finding no statement of its prefix in flight is sent at once, alone; the writes that arrive while one
   * is in flight wait, and are sent together, at most {@link MAX_GROUP}, in one statement as soon as it is
   * answered (a group commit). Concurrent requests of one process would otherwise all guess the same next
   * name, and all but one would miss (their statement then stores nothing and the write is done again the
   * slow way); in turn, each group guesses the names after those its predecessor just took, and misses only
   * when another process or a transaction moved the counter in between. One statement for a group instead
   * of one turn per write is what keeps concurrent creates from queueing behind each other's round trips
   * (docs/performance.md#creates-together). Only statements outside a transaction may wait here: a
   * transaction waiting could hold the counter's row lock that the statement in flight is waiting for.
   *
   * `send` is given the group's items in arrival order and answers a result for each, in that order; the
   * group's first item's `send` sends it. When it fails, every item of the group gets its error.
   */
  together<I, R>(prefix: string, item: I, send: (items: readonly I[]) => Promise<readonly R[]>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const waiting = { item, send, resolve, reject } as Waiting<unknown, unknown>;
      const queue = this.#queues.get(prefix);
      if (queue) {
        queue.push(waiting);
        return;
      }
      const started: Waiting<unknown, unknown>[] = [waiting];
      this.#queues.set(prefix, started);
      void this.#drain(prefix, started);
    });
  }

  /** Sends the groups of `prefix` one after the other, until no write of it is waiting. */
  async #drain(prefix: string, queue: Waiting<unknown, unknown>[]): Promise<void> {
    while (queue.length > 0) {
      const group = queue.splice(0, MAX_GROUP);
      try {
        const results = await group[0]!.send(group.map((w) => w.item));
        for (const [i, w] of group.entries()) w.resolve(results[i]);
      } catch (error) {
        for (const w of group) w.reject(error);
      }
    }
    this.#queues.delete(prefix);
  }
}

/**
 * The most writes one guessed statement carries: each brings its record's and its companions' parameters
 * (about a dozen), far below PostgreSQL's 65,535 per statement, and a group this size is already rare.
 */
export const MAX_GROUP = 64;

/** A write waiting for its group's statement, and how its caller is answered. */
interface Waiting<I, R> {
  readonly item: I;
  readonly send: (items: readonly I[]) => Promise<readonly R[]>;
  resolve(result: R): void;
  reject(error: unknown): void;
}
