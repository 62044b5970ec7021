/**
 * Group commit of syncs to stable storage: one sync covers every write made before it started, so callers
 * that ask while a sync runs share the next one instead of each starting their own. Under concurrency there
 * are fewer syncs than callers. Used for the embedded database's WAL (pglite.ts) and the audit journal
 * (backend/audit/audit-journal.ts).
 */
export class GroupSync {
  readonly #round: () => Promise<void>;
  #running: Promise<void> | undefined;
  #next: Promise<void> | undefined;

  /** `round` syncs everything written so far; it never runs twice at once. */
  constructor(round: () => Promise<void>) {
    this.#round = round;
  }

  /** Resolves once everything written before this call is on stable storage. */
  sync(): Promise<void> {
    // A sync already running may have started before this caller's write: the caller waits for the next one.
    if (this.#next) return this.#next;
    if (!this.#running) return this.#start();
    const next = this.#running.then(
      () => this.#start(),
      () => this.#start(),
    );
    this.#next = next;
    return next;
  }

  #start(): Promise<void> {
    this.#next = undefined;
    const run = this.#round().finally(() => {
      if (this.#running === run) this.#running = undefined;
    });
    this.#running = run;
    return run;
  }

  /** Waits for the syncs asked for so far, whatever their outcome. */
  async settled(): Promise<void> {
    await this.#next?.catch(() => {});
    await this.#running?.catch(() => {});
  }
}
