/**
 * The scaffold's own commands, run the way a team runs them in the folder `m new app` wrote: `npm test`
 * covers the app's DocTypes generically, so it still passes once a second DocType is added (and fails for a
 * broken one); `npm run build` type-checks first, so a type error in the UI stops the build before any
 * remote is written. The folder's `node_modules` links the platform and the tools it declares to this
 * checkout's copies (what `npm install` puts there), so the test needs no registry.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const parent = mkdtempSync(join(tmpdir(), 'desk-scaffold-'));
const dir = join(parent, 'gizmos');

/** `npm <args>` in the scaffold: its exit status and output. */
function npm(args: string[]): { status: number | null; output: string } {
  const result = spawnSync('npm', args, {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

/** Links `node_modules/<name>` (and its bins) to this checkout's copy. */
function link(name: string, target: string, bins: Record<string, string> = {}): void {
  const path = join(dir, 'node_modules', name);
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(target, path, 'dir');
  for (const [bin, file] of Object.entries(bins)) {
    mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(join(target, file), join(dir, 'node_modules', '.bin', bin));
  }
}

/** Edits a file of the scaffold: `from` must be there. */
function edit(file: string, from: string, to: string): void {
  const path = join(dir, file);
  const text = readFileSync(path, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} has no ${JSON.stringify(from)}`);
  writeFileSync(path, text.replace(from, to));
}

beforeAll(() => {
  execFileSync(process.execPath, [join(root, 'bin', 'm.js'), 'new', 'app', 'gizmos', '--dir', dir], {
    stdio: 'pipe',
  });
  const modules = join(root, 'node_modules');
  link('@framework-m/desk', root, { m: 'bin/m.js' });
  link('typescript', join(modules, 'typescript'), { tsc: 'bin/tsc' });
  link('tsx', join(modules, 'tsx'), { tsx: 'dist/cli.mjs' });
  link('@types/node', join(modules, '@types', 'node'));
  link('@types/react', join(modules, '@types', 'react'));
});

afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe('the scaffold’s dev loop', () => {
  it('npm test passes with a second DocType, which its generic tests cover, and fails for a broken one', () => {
    edit(
      'doctypes.ts',
      '/** A stored Note',
      `/** \`gizmos.Part\`: a part, numbered. */
export const Part = defineDocType({
  name: 'gizmos.Part',
  label: 'Part',
  titleField: 'code',
  namePrefix: 'PART',
  model: z.object({
    code: z.string().trim().min(1).max(40).meta({ label: 'Code', inList: true }),
    quantity: z.number().int().min(0).meta({ label: 'Quantity' }).optional(),
  }),
});

/** A stored Note`,
    );
    edit('app.ts', "import { Note } from './doctypes';", "import { Note, Part } from './doctypes';");
    edit('app.ts', 'doctypes: [Note],', 'doctypes: [Note, Part],');
    const passing = npm(['test']);
    expect(passing.output).toMatch(/gizmos\.Part: named in the app/);
    expect(passing.output).toMatch(/# fail 0/);
    expect(passing.status).toBe(0);

    // The same DocType titled by a field it does not have: the generic test names it.
    edit('doctypes.ts', "titleField: 'code',", "titleField: 'serial',");
    const failing = npm(['test']);
    expect(failing.status).not.toBe(0);
    expect(failing.output).toContain('its titleField "serial" is one of its fields');
    edit('doctypes.ts', "titleField: 'serial',", "titleField: 'code',");
  });

  it('npm run build type-checks first: a type error in the UI fails it before a remote is written', () => {
    // The folder as written (with the second DocType) type-checks: only the error below fails it.
    const clean = npm(['run', 'typecheck']);
    expect(clean.output).not.toContain('error TS');
    expect(clean.status).toBe(0);
    edit('ui/NoteForm.tsx', 'type Values = {', "const broken: number = 'not a number';\ntype Values = {");
    const build = npm(['run', 'build']);
    expect(build.status).not.toBe(0);
    expect(build.output).toMatch(/ui\/NoteForm\.tsx\(\d+,\d+\): error TS2322/);
    expect(existsSync(join(dir, 'static', 'mfe', 'remoteEntry.js'))).toBe(false);
  });
});
