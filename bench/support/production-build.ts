/**
 * The production build the Desk benchmarks run against: the shell in `dist/shell` and each app's remote in
 * `backend/apps/<app>/static/mfe`, rebuilt by `scripts/build.js --missing` when missing or older than their
 * sources, since a benchmark of a stale build measures old code.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
// @ts-expect-error: a plain JavaScript build script without type declarations
import * as buildScript from '../../scripts/build.js';

interface BuildTarget {
  name: string;
  output: string;
  marker: string;
  sources: string[];
}

/** The parts of scripts/build.js the benchmarks use, typed. */
const build = buildScript as {
  SHELL_JS_BUDGET_GZIP: number;
  targets(): BuildTarget[];
  buildReason(target: BuildTarget): 'missing' | 'out of date' | undefined;
  gzipBytesOfJs(dir: string, only?: string[]): number;
};

const root = join(import.meta.dirname, '..', '..');

/** Gzip budget of the shell's JavaScript plus every `remoteEntry.js`, as the build enforces it. */
export const SHELL_JS_BUDGET_GZIP = build.SHELL_JS_BUDGET_GZIP;

/**
 * Builds the targets whose output is missing or older than their sources (`scripts/build.js --missing`), so
 * the benchmark measures the current code; throws when the build fails. Returns the names of targets that
 * are still out of date afterwards (none, unless a source changed during the build).
 */
export function ensureProductionBuild(): string[] {
  const result = spawnSync(process.execPath, [join(root, 'scripts', 'build.js'), '--missing'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error(`scripts/build.js exited with ${result.status ?? result.signal}`);
  return build
    .targets()
    .filter((t) => build.buildReason(t) !== undefined)
    .map((t) => t.name);
}

/** What the build's budget check counts: gzip bytes of every shell JS file plus every app's remoteEntry.js. */
export function budgetedBytes(): number {
  const [shell, ...apps] = build.targets();
  return (
    build.gzipBytesOfJs(shell!.output) +
    apps.reduce((sum, t) => sum + build.gzipBytesOfJs(t.output, ['remoteEntry.js']), 0)
  );
}
