import { defineConfig } from 'vitest/config';

// Four projects: node-side unit/integration tests, DOM tests of the shell (jsdom), the end-to-end tests that
// drive Chromium against a real `m serve`, and the fault tests that start, flood and kill real servers, NATS
// and PostgreSQL on 127.0.0.1. They run in three groups, one after the other: node and dom three files at a
// time, then faults two at a time, then e2e two files at a time with nothing else running (one file at a
// time left a two-core machine about half idle: its browser and its server mostly wait on each other, and
// every e2e step waits for a state, never for a time). More workers than "cores minus
// one": most of a node file's time is spent waiting on a database, a server or a child process, so files
// overlap well even on two cores. Timeouts only stop a hung test; they are generous because tests that start
// servers and databases run several times slower on a busy two-core machine.
export default defineConfig({
  test: {
    reporters: ['default', './test/reporters/summary-line.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'test/shell/**', 'test/faults/**', 'node_modules/**'],
          testTimeout: 90_000,
          hookTimeout: 120_000,
          maxWorkers: 3,
        },
      },
      {
        extends: true,
        test: {
          name: 'dom',
          environment: 'jsdom',
          include: ['test/shell/**/*.test.{ts,tsx}'],
          setupFiles: ['test/shell/support/setup-dom.ts'],
          testTimeout: 60_000,
          // The same as node's: projects of one group share their worker count.
          maxWorkers: 3,
        },
      },
      {
        extends: true,
        test: {
          name: 'faults',
          environment: 'node',
          include: ['test/faults/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Two files at a time, after the node and dom projects: each file uses its own free ports and temporary directories and writes
          // nothing in the checkout, and most of a file's time is spent waiting on the processes it starts.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/e2e/support/build-once.ts'],
          testTimeout: 180_000,
          hookTimeout: 300_000,
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
