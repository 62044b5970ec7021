/**
 * The first screen of the build these tests serve is within its budget (docs/performance.md#the-budget).
 * The e2e set-up builds the shell and the app remotes with the same production webpack build as
 * `npm run build` (`--missing` only skips what is current), and `npm run build` fails with exit code 3 above
 * the budget: checked here, where that build already exists, a change that grows the first screen past
 * the budget fails the tests instead of the next `npm run build`.
 */
import { describe, expect, it } from 'vitest';
import {
  FIRST_SCREEN_BUDGET_BROTLI,
  FIRST_SCREEN_BUDGET_GZIP,
  firstScreen,
  overBudget,
  targets,
  // @ts-expect-error: a plain JavaScript build script without type declarations
} from '../../scripts/build.js';

interface Target {
  name: string;
  output: string;
}
interface Screen {
  files: Array<{ from: string; file: string; gzip: number; brotli: number }>;
  remote: string;
  gzip: number;
  brotli: number;
}

describe('the first screen of the production build', () => {
  it('is within its budget in brotli and in gzip', () => {
    const [shell, ...remotes] = targets() as Target[];
    const screen = firstScreen(
      shell!.output,
      Object.fromEntries(remotes.map((t) => [t.name, t.output])),
    ) as Screen;
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
    // The figures in the failure say by how much, and which files weigh most.
    const heaviest = [...screen.files]
      .sort((a, b) => b.gzip - a.gzip)
      .slice(0, 5)
      .map((f) => `${f.from}/${f.file} ${kb(f.gzip)} gz`);
    expect({
      over: overBudget(screen),
      brotli: `${kb(screen.brotli)} of ${kb(FIRST_SCREEN_BUDGET_BROTLI)}`,
      gzip: `${kb(screen.gzip)} of ${kb(FIRST_SCREEN_BUDGET_GZIP)}`,
      heaviest,
    }).toMatchObject({ over: [] });
    expect(screen.files.some((f) => f.from === 'shell')).toBe(true);
    expect(screen.remote).toBeDefined();
  });
});
