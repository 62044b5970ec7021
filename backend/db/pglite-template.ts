import { mkdirSync, openAsBlob, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';

/**
 * The empty cluster new databases start from (docs/performance.md#new-clusters). PGlite makes a new cluster
 * by running initdb in a second WASM instance, about 2 s of CPU and a few hundred MB of memory, and an
 * in-memory database needs a new cluster every time it is opened: the tests open more than a hundred. The
 * first cluster a machine makes, in memory or on disk, is kept, checkpointed and still empty, as a tar file
 * (PGlite's own `dumpDataDir`); every later one loads that copy instead of running initdb (PGlite's
 * `loadDataDir`), as PostgreSQL's own test suite copies one initdb'd template instead of running initdb per
 * test. A cluster on disk is a copy of its files (cluster-copy.ts), an in-memory one is loaded here.
 *
 * The copy lives in `node_modules/.cache/` beside PGlite, named after PGlite's version, so an upgrade makes a
 * new one. Writing it is best effort (a read-only install makes none), and a copy that does not load is
 * removed and the cluster made by initdb.
 */

/** The folder PGlite is installed in (`.../node_modules/@electric-sql/pglite`). */
function pglitePackageDir(): string {
  // The entry point is `<package>/dist/index.js`.
  return dirname(dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite'))));
}

/** Where the template of this PGlite version is kept; undefined when PGlite is not under a node_modules. */
export function templatePath(packageDir: string = pglitePackageDir()): string | undefined {
  const marker = `${sep}node_modules${sep}`;
  const at = packageDir.lastIndexOf(marker);
  if (at < 0) return undefined;
  let version: string;
  try {
    version = (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string })
      .version;
  } catch {
    return undefined;
  }
  const nodeModules = packageDir.slice(0, at + marker.length - 1);
  return join(nodeModules, '.cache', 'platform-pglite', `empty-cluster-${version}.tar`);
}

/** The kept template (read from the file as PGlite loads it), or undefined when there is none yet. */
async function readTemplate(path: string | undefined = templatePath()): Promise<Blob | undefined> {
  if (!path) return undefined;
  try {
    return await openAsBlob(path);
  } catch {
    return undefined;
  }
}

/**
 * Keeps `pg`'s cluster as the template: call on a database PGlite has just created, before anything is
 * written to it. Checkpointed first, so a database loaded from it replays no WAL. Written beside its final
 * name and renamed over it, so a reader never sees half a file; any failure leaves no template.
 */
async function saveTemplate(pg: PGlite, path: string | undefined = templatePath()): Promise<void> {
  if (!path) return;
  const partial = `${path}.${process.pid}.partial`;
  try {
    await pg.exec('CHECKPOINT');
    const tar = await pg.dumpDataDir('none');
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(partial, Buffer.from(await tar.arrayBuffer()));
    renameSync(partial, path);
  } catch {
    rmSync(partial, { force: true });
  }
}

/**
 * An in-memory PGlite (`start` with the tar of a cluster to load, or none to run initdb) on a copy of the kept
 * template, or on a new cluster that is then kept. A template that does not load is removed, so the next
 * database runs initdb and keeps a new one.
 */
export async function startFromTemplate(
  start: (template?: Blob) => Promise<PGlite>,
  path: string | undefined = templatePath(),
): Promise<PGlite> {
  const template = await readTemplate(path);
  if (template) {
    try {
      return await start(template);
    } catch {
      if (path) rmSync(path, { force: true });
    }
  }
  const pg = await start();
  await saveTemplate(pg, path);
  return pg;
}
