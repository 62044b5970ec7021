import { defineConfig } from 'vitest/config';

// Six projects: node-side unit/integration tests and DOM tests of the shell (jsdom), each in two (below),
// the end-to-end tests that drive Chromium against a real `m serve`, and the fault tests that start, flood
// and kill real servers, NATS and PostgreSQL on 127.0.0.1. They run in three groups, one after the other:
// node and dom four files at a time, then faults three at a time, then e2e two files at a time with
// nothing else running (every e2e step waits for a state, never for a time; a third e2e file at once only
// made each one slower, their browsers and servers keeping both cores busy). More workers than "cores
// minus one" elsewhere: most of a node or fault file's time is spent waiting on a database, a server, a
// sync or a child process, so files overlap well even on two cores; with three node files and two fault
// files at a time, a run sampled each second left the cores idle for about a third of the faults and of the
// first minute (docs/development.md#what-the-run-costs). Timeouts only stop a hung test; they are generous
// because tests that start servers and databases run several times slower on a busy two-core machine.
//
// The node files share their worker's modules (`isolate: false`): a fresh process per file spent about as
// much time loading the backend's modules as running the tests. What a file leaves in a module (a
// registered migration, a loaded library) is then seen by the files after it in that worker, so these
// tests do not depend on a module's first load, and helpers tie what they make to the current file
// (test/helpers/file-temp-dirs.ts). The files that do need a process of their own run in `node-fresh`:
// the SDK's and the mock backend's, whose MSW servers patch the process's `fetch`, and the one that checks
// a library is not loaded until a plan names it.
const FRESH_NODE_FILES = [
  'test/sdk/**/*.test.ts',
  'test/mocks/**/*.test.ts',
  'test/benchmarks/template/faker-source.test.ts',
];
// The DOM test files share their worker's modules too (each starts with an empty page and storage:
// test/shell/support/setup-dom.ts), but for these: the one that boots the whole shell on import and leaves
// it running (its listeners would answer later files' navigations), and those that work left running by an
// earlier file (timers, a session, React roots, a remote's loaded views) was seen to disturb in some orders
// of the files (`--sequence.shuffle.files`).
const FRESH_DOM_FILES = [
  'test/shell/boot.test.tsx',
  'test/shell/views/developer-details-releases.test.tsx',
  'test/shell/views/doc-type-page.test.tsx',
  'test/shell/platform/prewarm-core.test.ts',
  'test/shell/platform/session-hint.test.ts',
  'test/shell/hooks/use-permissions.test.tsx',
  'test/shell/views/login-busy.test.tsx',
  'test/shell/views/remote-boundary.test.tsx',
  'test/shell/views/remote-unavailable.test.tsx',
  'test/shell/views/unknown-owner.test.tsx',
];
/**
 * Files at a time in the first group (node, node-fresh, dom, dom-fresh): vitest requires the projects of one
 * group to have the same worker count, and they share it.
 */
const FIRST_GROUP_WORKERS = 4;
/** Removes the temporary folders each test file's helpers made, after the file. */
const FILE_TEMP_DIRS = 'test/helpers/remove-file-temp-dirs.ts';

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
          exclude: ['test/e2e/**', 'test/shell/**', 'test/faults/**', ...FRESH_NODE_FILES, 'node_modules/**'],
          setupFiles: [FILE_TEMP_DIRS],
          isolate: false,
          testTimeout: 90_000,
          hookTimeout: 120_000,
          maxWorkers: FIRST_GROUP_WORKERS,
        },
      },
      {
        extends: true,
        test: {
          name: 'node-fresh',
          environment: 'node',
          include: FRESH_NODE_FILES,
          setupFiles: [FILE_TEMP_DIRS],
          testTimeout: 90_000,
          hookTimeout: 120_000,
          maxWorkers: FIRST_GROUP_WORKERS,
        },
      },
      {
        extends: true,
        test: {
          name: 'dom',
          environment: 'jsdom',
          include: ['test/shell/**/*.test.{ts,tsx}'],
          exclude: [...FRESH_DOM_FILES, 'node_modules/**'],
          setupFiles: ['test/shell/support/setup-dom.ts'],
          isolate: false,
          testTimeout: 60_000,
          maxWorkers: FIRST_GROUP_WORKERS,
        },
      },
      {
        extends: true,
        test: {
          name: 'dom-fresh',
          environment: 'jsdom',
          include: FRESH_DOM_FILES,
          setupFiles: ['test/shell/support/setup-dom.ts'],
          testTimeout: 60_000,
          maxWorkers: FIRST_GROUP_WORKERS,
        },
      },
      {
        extends: true,
        test: {
          name: 'faults',
          environment: 'node',
          include: ['test/faults/**/*.test.ts'],
          setupFiles: [FILE_TEMP_DIRS],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Three files at a time, after the node and dom projects: each file uses its own free ports and temporary directories and writes
          // nothing in the checkout, and most of a file's time is spent waiting on the processes it starts.
          maxWorkers: 3,
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
          setupFiles: [FILE_TEMP_DIRS],
          testTimeout: 180_000,
          hookTimeout: 300_000,
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
