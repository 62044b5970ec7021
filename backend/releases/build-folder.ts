import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { loadAppFromPath } from '../apps/index';
import { type ContractFingerprint, contractFingerprint } from './fingerprint';
import { isReleaseFilePath, sha384Of } from './release-files';

/** A remote's build as `m release publish` reads it from an app folder. */
export interface BuildFolder {
  service: string;
  /** The app's package.json `version`. */
  packageVersion: string;
  /** Every file of `static/mfe/`, with its hash and bytes. */
  files: Array<{ path: string; sha384: string; size: number; bytes: Uint8Array }>;
  /** `static/mfe/mf-manifest.json`, parsed; null when the build has none. */
  mfManifest: unknown;
  /** The contract the app defines now, next to the build it was built with. */
  fingerprint: ContractFingerprint;
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(full)));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

/**
 * Reads an app folder's built remote (docs/mfe-teams.md#publishing-a-release): the app module (its name and
 * contract), package.json's version and every file under `static/mfe/`. Throws `Error` naming what is
 * missing: no package.json version, no `static/mfe/remoteEntry.js` (build first), a file name a release
 * cannot hold.
 */
export async function readBuildFolder(appDir: string): Promise<BuildFolder> {
  const app = await loadAppFromPath(appDir);
  const pkg = JSON.parse(await readFile(join(app.dir!, 'package.json'), 'utf8').catch(() => '{}')) as {
    version?: unknown;
  };
  if (typeof pkg.version !== 'string') throw new Error(`${app.dir}/package.json has no "version"`);
  const mfe = join(app.dir!, 'static', 'mfe');
  const paths = await walk(mfe).catch(() => [] as string[]);
  const files: BuildFolder['files'] = [];
  for (const full of paths.sort()) {
    const path = relative(mfe, full).split(sep).join('/');
    if (!isReleaseFilePath(path)) throw new Error(`${full}: a release cannot hold this file name`);
    const bytes = new Uint8Array(await readFile(full));
    files.push({ path, sha384: sha384Of(bytes), size: bytes.byteLength, bytes });
  }
  if (!files.some((f) => f.path === 'remoteEntry.js')) {
    throw new Error(`${mfe}/remoteEntry.js does not exist: build the remote first (npm run build)`);
  }
  const manifest = files.find((f) => f.path === 'mf-manifest.json');
  return {
    service: app.name,
    packageVersion: pkg.version,
    files,
    mfManifest: manifest ? JSON.parse(new TextDecoder().decode(manifest.bytes)) : null,
    fingerprint: contractFingerprint(app),
  };
}
