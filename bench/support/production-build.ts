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

/** One file of the first screen as the build counts it. */
export interface FirstScreenFile {
  file: string;
  from: string;
  raw: number;
  gzip: number;
  brotli: number;
}

/** The first screen's JavaScript as the build's budget check counts it. */
export interface FirstScreen {
  files: FirstScreenFile[];
  remote: string | undefined;
  raw: number;
  gzip: number;
  brotli: number;
}

/** The parts of scripts/build.js the benchmarks use, typed. */
const build = buildScript as {
  FIRST_SCREEN_BUDGET_BROTLI: number;
  FIRST_SCREEN_BUDGET_GZIP: number;
  targets(): BuildTarget[];
  buildReason(target: BuildTarget): 'missing' | 'out of date' | undefined;
  firstScreen(shellDir: string, remotes: Record<string, string>): FirstScreen;
};

const root = join(import.meta.dirname, '..', '..');

/** Brotli budget of the first screen's JavaScript, as the build enforces it. */
export const FIRST_SCREEN_BUDGET_BROTLI = build.FIRST_SCREEN_BUDGET_BROTLI;

/** Gzip budget of the first screen (scripts/build.js), the same as in brotli. */
export const FIRST_SCREEN_BUDGET_GZIP = build.FIRST_SCREEN_BUDGET_GZIP;

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

/** What the build's budget check counts: the shell's first-screen files plus the heaviest remote's. */
export function budgetedFirstScreen(): FirstScreen {
  const [shell, ...apps] = build.targets();
  return build.firstScreen(shell!.output, Object.fromEntries(apps.map((t) => [t.name, t.output])));
}
