import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { AVAILABLE_APPS } from '../../../backend/apps/index';
import { APP_NAME_PATTERN } from '../../contract';

/** The platform's root folder (this file lives in `<root>/src/cli/commands/`). */
const PLATFORM_ROOT = join(import.meta.dirname, '..', '..', '..');

/** Folder of the files `m new app` writes (`*.tmpl`, placeholders `__NAME__` and friends). */
export const APP_TEMPLATE_DIR = join(PLATFORM_ROOT, 'templates', 'app');

/** Names an app may not take: the Desk's own asset folder and route names. */
export const RESERVED_APP_NAMES = ['shell', 'desk', 'api', 'gateway', 'assets', 'platform', 'app'];

/** Options of {@link scaffoldApp}. */
export interface ScaffoldOptions {
  name: string;
  /** Target folder; must not exist or be empty. */
  dir: string;
  /** How the app's package.json depends on the platform; default `file:<platform root>`. */
  platform?: string;
}

/** Why a scaffold was refused: `code` is stable, `message` is for a person. */
export class ScaffoldError extends Error {
  constructor(
    readonly code: 'invalid_name' | 'name_taken' | 'dir_not_empty',
    message: string,
  ) {
    super(message);
  }
}

/** Checks an app name; throws {@link ScaffoldError} (`invalid_name`, `name_taken`). */
export function checkAppName(name: string): void {
  if (!APP_NAME_PATTERN.test(name)) {
    throw new ScaffoldError(
      'invalid_name',
      `"${name}" is not a valid app name: use lower-case letters, digits and _, starting with a letter (at most 32).`,
    );
  }
  if (Object.hasOwn(AVAILABLE_APPS, name)) {
    throw new ScaffoldError('name_taken', `"${name}" is the name of an app the platform already installs.`);
  }
  if (RESERVED_APP_NAMES.includes(name)) {
    throw new ScaffoldError('name_taken', `"${name}" is reserved by the Desk; choose another name.`);
  }
}

function label(name: string): string {
  return name
    .split('_')
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');
}

/** The placeholder values of the templates for `options`. */
export function templateValues(options: ScaffoldOptions): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(PLATFORM_ROOT, 'package.json'), 'utf8')) as {
    name: string;
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const pin = (dep: string) => pkg.devDependencies[dep] ?? pkg.dependencies[dep] ?? 'latest';
  return {
    __NAME__: options.name,
    __LABEL__: label(options.name),
    __ROLE__: `${label(options.name)} User`,
    __PLATFORM_PACKAGE__: pkg.name,
    __PLATFORM_SPEC__: options.platform ?? `file:${PLATFORM_ROOT}`,
    __V_TYPES_NODE__: pin('@types/node'),
    __V_TYPES_REACT__: pin('@types/react'),
    __V_TSX__: pin('tsx'),
    __V_TYPESCRIPT__: pin('typescript'),
  };
}

function templateFiles(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? templateFiles(path, base) : [relative(base, path)];
  });
}

/** Where a template file goes: `.tmpl` dropped, `gitignore` becomes `.gitignore` (npm would drop the dot). */
function targetName(template: string): string {
  const plain = template.replace(/\.tmpl$/, '');
  return plain === 'gitignore' ? '.gitignore' : plain;
}

/**
 * Writes a new app into `options.dir`: package.json, the app module with `<name>.Note` and an RPC method, a
 * UI remote, a test and a README. Everything is checked before the first file is written; a refusal
 * throws {@link ScaffoldError} and writes nothing. Returns the files written, relative to the folder.
 */
export function scaffoldApp(options: ScaffoldOptions): string[] {
  checkAppName(options.name);
  const dir = resolve(options.dir);
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
    throw new ScaffoldError('dir_not_empty', `${dir} already exists and is not empty; choose a new folder.`);
  }
  const values = templateValues(options);
  const files = templateFiles(APP_TEMPLATE_DIR).sort();
  const rendered = files.map((template) => {
    let text = readFileSync(join(APP_TEMPLATE_DIR, template), 'utf8');
    for (const [key, value] of Object.entries(values)) text = text.replaceAll(key, value);
    return { path: targetName(template), text };
  });
  for (const file of rendered) {
    const target = join(dir, file.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.text);
  }
  return rendered.map((f) => f.path);
}
