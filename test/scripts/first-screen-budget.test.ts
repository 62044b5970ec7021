/**
 * The build's first-screen budget (scripts/build.js): the shell's listed files plus the heaviest remote's,
 * counted as the server sends them, and `npm run build` failing above the budget in brotli or in gzip.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FIRST_SCREEN_BUDGET,
  FIRST_SCREEN_BUDGET_BROTLI,
  FIRST_SCREEN_BUDGET_GZIP,
  firstScreen,
  overBudget,
  precompress,
  withinBudget,
  // @ts-expect-error: a plain JavaScript build script without type declarations
} from '../../scripts/build.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A build folder with `files` (name -> bytes) and a first-screen.json listing `listed`. */
function buildDir(files: Record<string, Buffer | string>, listed: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'first-screen-'));
  dirs.push(dir);
  mkdirSync(dir, { recursive: true });
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body);
  writeFileSync(join(dir, 'first-screen.json'), JSON.stringify({ files: listed }));
  precompress(dir);
  return dir;
}

const text = (kb: number) => 'const value = 1;\n'.repeat(Math.ceil((kb * 1024) / 17));

describe('firstScreen', () => {
  it("counts the shell's listed files and the heaviest remote's, compressed as the server sends them", () => {
    const shell = buildDir({ 'main.js': text(40), 'later.js': text(40), 'tiny.js': 'x' }, [
      'main.js',
      'tiny.js',
    ]);
    const light = buildDir({ 'remoteEntry.js': text(2) }, ['remoteEntry.js']);
    const heavy = buildDir({ 'remoteEntry.js': randomBytes(4096).toString('hex') }, ['remoteEntry.js']);

    const screen = firstScreen(shell, { light, heavy });

    expect(screen.remote).toBe('heavy');
    expect(screen.files.map((f: { from: string; file: string }) => `${f.from}/${f.file}`)).toEqual([
      'shell/main.js',
      'shell/tiny.js',
      'heavy/remoteEntry.js',
    ]);
    // A file under 1 KB goes out as it is; the others as their precompressed siblings.
    const tiny = screen.files.find((f: { file: string }) => f.file === 'tiny.js');
    expect(tiny).toMatchObject({ raw: 1, gzip: 1, brotli: 1 });
    const main = screen.files.find((f: { file: string }) => f.file === 'main.js');
    expect(main.brotli).toBeLessThan(main.raw);
    expect(screen.brotli).toBe(screen.files.reduce((s: number, f: { brotli: number }) => s + f.brotli, 0));
  });

  it('counts in each encoding the remote that weighs most in that encoding', () => {
    const shell = buildDir({ 'main.js': text(4) }, ['main.js']);
    const a = buildDir({ 'remoteEntry.js': text(8) }, ['remoteEntry.js']);
    const b = buildDir({ 'remoteEntry.js': randomBytes(2048).toString('base64') }, ['remoteEntry.js']);

    const screen = firstScreen(shell, { a, b });
    const sizes = (dir: string) => firstScreen(dir, {});

    for (const key of ['brotli', 'gzip'] as const) {
      const heaviest = Math.max(sizes(a)[key], sizes(b)[key]);
      expect(screen[key]).toBe(sizes(shell)[key] + heaviest);
    }
  });

  it('fails when the shell build wrote no first-screen list', () => {
    const dir = mkdtempSync(join(tmpdir(), 'first-screen-'));
    dirs.push(dir);
    expect(() => firstScreen(dir, {})).toThrow(/first-screen\.json/);
  });
});

describe('withinBudget', () => {
  const limit = FIRST_SCREEN_BUDGET;

  it('is 150 KB in brotli and 155 KB in gzip', () => {
    expect(limit).toBe(150 * 1024);
    expect(FIRST_SCREEN_BUDGET_BROTLI).toBe(limit);
    expect(FIRST_SCREEN_BUDGET_GZIP).toBe(155 * 1024);
  });

  const gzip = FIRST_SCREEN_BUDGET_GZIP;

  it('passes when both encodings are at their budget', () => {
    expect(withinBudget({ brotli: limit, gzip })).toBe(true);
    expect(overBudget({ brotli: limit, gzip })).toEqual([]);
  });

  it('fails one brotli byte above the budget', () => {
    expect(withinBudget({ brotli: limit + 1, gzip })).toBe(false);
    expect(overBudget({ brotli: limit + 1, gzip })).toEqual(['brotli']);
  });

  it('fails one gzip byte above the budget even when brotli is well within it', () => {
    expect(withinBudget({ brotli: limit - 20 * 1024, gzip: gzip + 1 })).toBe(false);
    expect(overBudget({ brotli: limit - 20 * 1024, gzip: gzip + 1 })).toEqual(['gzip']);
  });

  it('names both encodings when both are above it', () => {
    expect(overBudget({ brotli: limit + 1, gzip: gzip + 1 })).toEqual(['brotli', 'gzip']);
  });
});
