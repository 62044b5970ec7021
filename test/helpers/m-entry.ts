/**
 * How the tests see which code `bin/m.js` runs: a module-load log, and a copy of the checkout's entry point
 * whose bundles a test may build or make stale without touching the ones other tests and servers run from.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fileTempDir } from './file-temp-dirs';

/** The repository's root folder. */
export const ROOT = join(import.meta.dirname, '..', '..');

/** A log of the modules a process loads: `register` goes to `node --import`, `loaded()` reads the URLs. */
export interface ModuleLog {
  register: string;
  loaded(): string[];
  clear(): void;
}

/** A module hook that appends the URL of every module Node loads to a fresh file. */
export function moduleLog(): ModuleLog {
  const dir = fileTempDir('load-log-');
  const log = join(dir, 'loaded.txt');
  writeFileSync(log, '');
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(log)}, url + '\\n');
  return next(url, context);
}
`,
  );
  const register = join(dir, 'register.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`,
  );
  return {
    register,
    loaded: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
    clear: () => writeFileSync(log, ''),
  };
}

/**
 * A temporary folder laid out as this checkout for `bin/m.js`: copies of it and package.json, links to the
 * sources and dependencies (a bundle's freshness is read from their files); no `dist/` yet.
 */
export function checkoutCopy(): string {
  const copy = fileTempDir('checkout-copy-');
  mkdirSync(join(copy, 'bin'));
  copyFileSync(join(ROOT, 'bin', 'm.js'), join(copy, 'bin', 'm.js'));
  copyFileSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
  for (const name of ['src', 'backend', 'templates', 'node_modules', 'package-lock.json']) {
    symlinkSync(join(ROOT, name), join(copy, name));
  }
  return copy;
}

/**
 * Builds the server's bundle (scripts/build.js's `buildServerBundle`) into `outDir`, a folder two levels below
 * a checkout as dist/server/ is (the bundled modules find the repository by depth); throws with the build's
 * output when it fails.
 */
export function buildServerBundleInto(outDir: string): void {
  const build = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { buildServerBundle } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'scripts', 'build.js')).href)});
       process.exit(buildServerBundle(process.argv[1]) ? 0 : 1);`,
      outDir,
    ],
    { cwd: ROOT, encoding: 'utf8', timeout: 90_000 },
  );
  if (build.status !== 0) throw new Error(`the server bundle was not built:\n${build.stderr}${build.stdout}`);
}
