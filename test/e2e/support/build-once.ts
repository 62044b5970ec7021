/**
 * The e2e project's global set-up: builds the shell and the app remotes that are missing or out of date
 * (`node scripts/build.js --missing`, what `m serve --build-missing` runs) once, before any e2e file starts.
 * The files run two at a time, and two servers started with `--build-missing` on a clean clone would
 * otherwise build into the same `dist/` at once.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..', '..');

export default function setup(): void {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.js'), '--missing'], {
    cwd: root,
    stdio: 'inherit',
  });
}
