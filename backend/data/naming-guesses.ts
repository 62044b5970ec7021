/**
 * What a process knows of its naming series, for stores that guess a new record's name instead of taking
 * it first (see `DbRecordStore.insertNamed`): the counter each prefix had after this process's last use of
 * it, and a turn per prefix for the guesses sent outside a transaction.
 */
export class NamingGuesses {
  readonly #last = new Map<string, number>();
  readonly #turns = new Map<string, Promise<unknown>>();

  /** The counter `prefix` had after this process last used it; undefined before the first use. */
  last(prefix: string): number | undefined {
    return this.#last.get(prefix);
  }

  /** Records that this process's write left `prefix` at `counter`. */
  took(prefix: string, counter: number): void {
    this.#last.set(prefix, counter);
  }

  /**
   * Runs `guess` once every guess of `prefix` this process started before it has been answered. Concurrent
   * requests of one process would otherwise all guess the same next name, and all but one would miss
   * (their statement then stores nothing and the write is done again the slow way); in turn, each guesses
   * the name after the one its predecessor just took, and misses only when another process or a
   * transaction moved the counter in between. Only statements outside a transaction may wait for a turn: a
   * transaction waiting here could hold the counter's row lock that the guess in turn is waiting for.
   */
  inTurn<T>(prefix: string, guess: () => Promise<T>): Promise<T> {
    const previous = this.#turns.get(prefix) ?? Promise.resolve();
    const mine = previous.then(guess);
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    this.#turns.set(prefix, settled);
    // The last turn of a prefix leaves no entry behind once it is over.
    void settled.then(() => {
      if (this.#turns.get(prefix) === settled) this.#turns.delete(prefix);
    });
    return mine;
  }
}
