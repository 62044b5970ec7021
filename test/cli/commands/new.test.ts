/** `m new app`: what it writes, and the refusals that write nothing. */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { newCommand } from '../../../src/cli/commands/new';
import { scaffoldApp } from '../../../src/cli/commands/new-app';

const parent = mkdtempSync(join(tmpdir(), 'desk-new-'));
const root = join(import.meta.dirname, '..', '..', '..');

afterEach(() => vi.restoreAllMocks());
afterAll(() => rmSync(parent, { recursive: true, force: true }));

function quiet() {
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((l: string) => lines.push(l));
  vi.spyOn(console, 'error').mockImplementation((l: string) => lines.push(l));
  return lines;
}

describe('m new app', () => {
  it('writes a standalone app depending on the platform by a file: path, with no placeholder left', async () => {
    const dir = join(parent, 'field_notes');
    quiet();
    expect(await newCommand.run(['app', 'field_notes', '--dir', dir])).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(
      [
        '.gitignore',
        'README.md',
        'api.ts',
        'app.ts',
        'doctypes.ts',
        'package.json',
        'test',
        'tsconfig.json',
        'ui',
        'webpack.config.ts',
      ].sort(),
    );
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('field_notes');
    expect(pkg.dependencies['@framework-m/desk']).toBe(`file:${root}`);
    expect(pkg.devDependencies.typescript).toBe('7.0.2');
    expect(readFileSync(join(dir, 'doctypes.ts'), 'utf8')).toContain("name: 'field_notes.Note'");
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('# Field Notes');
    for (const file of [
      'app.ts',
      'api.ts',
      'doctypes.ts',
      'webpack.config.ts',
      'ui/views.ts',
      'ui/NoteForm.tsx',
    ]) {
      expect(readFileSync(join(dir, file), 'utf8')).not.toMatch(/__[A-Z_]+__/);
    }
  });

  it('takes --platform for the dependency', () => {
    const dir = join(parent, 'pinned');
    scaffoldApp({ name: 'pinned', dir, platform: '^0.1.0' });
    expect(
      JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies['@framework-m/desk'],
    ).toBe('^0.1.0');
  });

  it('refuses an invalid name, an installed app name, a reserved name and a non-empty folder, writing nothing', async () => {
    const lines = quiet();
    const target = join(parent, 'refused');
    expect(await newCommand.run(['app', 'Bad-Name', '--dir', target])).toBe(1);
    expect(await newCommand.run(['app', 'crm', '--dir', target])).toBe(1);
    expect(await newCommand.run(['app', 'shell', '--dir', target])).toBe(1);
    expect(existsSync(target)).toBe(false);
    mkdirSync(target);
    writeFileSync(join(target, 'keep.txt'), 'mine');
    expect(await newCommand.run(['app', 'notes', '--dir', target])).toBe(1);
    expect(readdirSync(target)).toEqual(['keep.txt']);
    const text = lines.join('\n');
    expect(text).toContain('"Bad-Name" is not a valid app name');
    expect(text).toContain('"crm" is the name of an app the platform already installs');
    expect(text).toContain('"shell" is reserved');
    expect(text).toContain('already exists and is not empty');
    expect(text).toContain('Nothing was written.');
  });

  it('is a usage error without "app <name>"', async () => {
    quiet();
    expect(await newCommand.run([])).toBe(2);
    expect(await newCommand.run(['service', 'x'])).toBe(2);
  });
});
