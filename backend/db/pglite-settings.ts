import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { PGlite } from '@electric-sql/pglite';
import { copyCluster, NotAClusterArchive } from './cluster-copy';

/**
 * Postgres settings of the embedded database, chosen for a small resident set (docs/performance.md#memory).
 * PGlite is a single backend in one process, so the server-sized defaults buy nothing: `shared_buffers`
 * (128MB by default) is allocated and touched at start inside the WASM heap, and the operating system's page
 * cache already holds the data files PGlite reads through the Node file system.
 */
export const PGLITE_SETTINGS: Readonly<Record<string, string>> = Object.freeze({
  shared_buffers: '8MB',
  wal_buffers: '256kB',
  temp_buffers: '1MB',
  work_mem: '4MB',
  maintenance_work_mem: '16MB',
  // One backend: no parallel plans, no background workers (PGlite's defaults say so too).
  max_parallel_workers_per_gather: '0',
});

/** PGlite's start arguments with {@link PGLITE_SETTINGS} appended as `-c name=value`. */
export function pgliteStartParams(): string[] {
  const params = [...PGlite.defaultStartParams];
  for (const [name, value] of Object.entries(PGLITE_SETTINGS)) params.push('-c', `${name}=${value}`);
  return params;
}

let tieringChosen = false;

/**
 * Compiles PGlite's WASM with V8's baseline compiler only, unless `optimize` (`server.pglite_optimize`) keeps
 * the optimising tier. That tier recompiles the hot part of a 9 MB module in the background and keeps both
 * copies: about 40 MB of resident code for a gain the database's own I/O-bound work rarely shows (measured
 * in docs/performance.md#memory). It must run before the module is compiled; it only concerns WebAssembly,
 * which nothing else on the server's hot path uses. V8's flags are process-wide and cannot be taken back:
 * once a database chose the baseline compiler, every later one in the process uses it too.
 */
export function chooseWasmTiering(optimize: boolean): void {
  if (tieringChosen || optimize) return;
  tieringChosen = true;
  setFlagsFromString('--liftoff-only');
}

/**
 * Creates the cluster under `dir` when it does not exist yet: a copy of the kept empty cluster at `template`
 * (pglite-template.ts) where there is one, written file by file (cluster-copy.ts), else the cluster initdb
 * makes in a short-lived child process, which is then kept at `template` for the next (checkpointed and still
 * empty, written beside its final name and renamed over it; best effort, so a read-only install keeps none).
 * PGlite's initdb runs a second WASM instance (initdb plus a scratch Postgres) whose memory the process keeps
 * after it ends, about 450 MB; in a child it goes back to the system when it exits. A kept copy that is not
 * a cluster is removed, with what was written of it into `dir`, and initdb runs; a failed write (a full
 * device) throws.
 */
export async function createCluster(dir: string, template?: string): Promise<void> {
  if (existsSync(join(dir, 'PG_VERSION'))) return;
  if (template && existsSync(template)) {
    try {
      await copyCluster(template, dir);
      return;
    } catch (error) {
      if (!(error instanceof NotAClusterArchive)) throw error;
      rmSync(template, { force: true });
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
    }
  }
  await initdbOutOfProcess(dir, template);
}

/** initdb under `dir` in a child process, its cluster then kept at `template` when there is none there. */
async function initdbOutOfProcess(dir: string, template?: string): Promise<void> {
  const script = `
    const fs = await import('node:fs');
    const { PGlite } = await import(${JSON.stringify(import.meta.resolve('@electric-sql/pglite'))});
    const template = ${JSON.stringify(template ?? null)};
    const pg = new PGlite(${JSON.stringify(dir)});
    await pg.waitReady;
    if (template && !fs.existsSync(template)) {
      const partial = template + '.' + process.pid + '.partial';
      try {
        await pg.exec('CHECKPOINT');
        const tar = await pg.dumpDataDir('none');
        fs.mkdirSync(${JSON.stringify(template ? dirname(template) : '')}, { recursive: true });
        fs.writeFileSync(partial, Buffer.from(await tar.arrayBuffer()));
        fs.renameSync(partial, template);
      } catch {
        fs.rmSync(partial, { force: true });
      }
    }
    await pg.close();
  `;
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--liftoff-only', '--input-type=module', '-e', script],
      { timeout: 120_000 },
      (err, _stdout, stderr) => {
        if (err)
          reject(
            new Error(`creating the database cluster in ${dir} failed: ${stderr.trim() || err.message}`),
          );
        else resolve();
      },
    );
  });
}
