/**
 * `m serve --watch`'s watch of app folders (src/cli/serve/app-watch.ts): a folder created at the top of an
 * app folder after the watch started is followed, the definition files it was created with count as
 * changed, and later writes in it too; folders that hold no definitions (`node_modules`) stay unwatched.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isDefinitionSource, watchAppSources } from '../../src/cli/serve/app-watch';

let dir = '';
let stop: (() => void) | undefined;
/** The batches `onChange` reported, and the waiters for the next one. */
let batches: string[][] = [];
let waiters: Array<(files: string[]) => void> = [];

/** Resolves with the next batch of changed files. */
const nextBatch = () => new Promise<string[]>((resolve) => waiters.push(resolve));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'desk-app-watch-'));
  writeFileSync(join(dir, 'app.ts'), 'export default {};\n');
  mkdirSync(join(dir, 'doctypes'));
  batches = [];
  waiters = [];
  stop = watchAppSources([dir], (files) => {
    batches.push(files);
    for (const waiter of waiters.splice(0)) waiter(files);
  });
});

afterEach(() => {
  stop?.();
  rmSync(dir, { recursive: true, force: true });
});

describe('watchAppSources', () => {
  it('follows a folder created after the start: the files it came with, then the ones written in it', async () => {
    let batch = nextBatch();
    mkdirSync(join(dir, 'parts', 'models'), { recursive: true });
    writeFileSync(join(dir, 'parts', 'models', 'part.ts'), 'export const Part = 1;\n');
    expect(await batch).toContain('parts/models/part.ts');

    batch = nextBatch();
    writeFileSync(join(dir, 'parts', 'more.ts'), 'export const More = 1;\n');
    expect(await batch).toContain('parts/more.ts');
  });

  it('keeps folders without definitions unwatched, and still follows the existing ones', async () => {
    mkdirSync(join(dir, 'node_modules', 'lib'), { recursive: true });
    writeFileSync(join(dir, 'node_modules', 'lib', 'index.js'), 'module.exports = 1;\n');
    let batch = nextBatch();
    writeFileSync(join(dir, 'doctypes', 'note.ts'), 'export const Note = 1;\n');
    expect(await batch).toEqual(['doctypes/note.ts']);
    expect(batches.flat().some((file) => file.startsWith('node_modules'))).toBe(false);

    batch = nextBatch();
    writeFileSync(join(dir, 'node_modules', 'lib', 'index.js'), 'module.exports = 2;\n');
    writeFileSync(join(dir, 'app.ts'), 'export default { changed: true };\n');
    expect(await batch).toEqual(['app.ts']);
  });

  it('counts only definition sources', () => {
    expect(isDefinitionSource('parts/part.ts')).toBe(true);
    expect(isDefinitionSource('ui/Form.tsx')).toBe(false);
    expect(isDefinitionSource('node_modules/x/index.js')).toBe(false);
    expect(isDefinitionSource('types.d.ts')).toBe(false);
  });
});
