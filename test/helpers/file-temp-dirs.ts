/**
 * Temporary folders that belong to the running test file: made by the test helpers, removed after the
 * file's own `afterAll` hooks by test/helpers/remove-file-temp-dirs.ts, a setup file every project runs
 * before each test file. A module's own `afterAll` would be registered only by the first file that imports
 * it when test files share a worker's modules, and a worker's process `exit` never comes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dirs: string[] = [];

/** A fresh folder in the temporary directory, removed after the current test file. */
export function fileTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** Removes every folder {@link fileTempDir} made so far. */
export function removeFileTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
