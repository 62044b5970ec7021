import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints one plain closing line, `tests: N passed, N failed` (`, N skipped` when any), after vitest's own
 * summary, so the outcome of `npm test` is readable by tools that do not parse vitest's output.
 */
export default class SummaryLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      // A file that failed to load has no tests to count: count it as one failure so it cannot pass silently.
      if (
        module.state() === 'failed' &&
        ![...module.children.allTests()].some((t) => t.result().state === 'failed')
      ) {
        failed++;
      }
    }
    const tail = skipped > 0 ? `, ${skipped} skipped` : '';
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed${tail}\n`);
  }
}
