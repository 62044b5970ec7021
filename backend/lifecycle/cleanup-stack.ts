/** A release step: closes one resource a process opened. */
export type Cleanup = () => Promise<void> | void;

/**
 * The resources a process opened, released in reverse order of opening. Every root and every `m serve`
 * runner owns one, so a failure part-way through a start releases exactly what was opened so far.
 */
export interface CleanupStack {
  /** Registers the release of a resource just opened; after `close()` started, it runs at once. */
  defer(cleanup: Cleanup): void;
  /**
   * Runs the registered steps last-in first-out. A failing step is logged and the next one still runs, so
   * one broken resource never leaks the others. Idempotent: later calls return the same promise.
   */
  close(): Promise<void>;
}

/** Creates an empty {@link CleanupStack}; release failures go to `log` as one line each. */
export function createCleanupStack(log: (line: string) => void): CleanupStack {
  const steps: Cleanup[] = [];
  let closing: Promise<void> | undefined;
  const run = async (step: Cleanup) => {
    try {
      await step();
    } catch (err) {
      log(`close failed: ${(err as Error).message}`);
    }
  };
  return {
    defer(cleanup) {
      if (closing) void closing.then(() => run(cleanup));
      else steps.push(cleanup);
    },
    close() {
      closing ??= (async () => {
        for (let step = steps.pop(); step; step = steps.pop()) await run(step);
      })();
      return closing;
    },
  };
}
