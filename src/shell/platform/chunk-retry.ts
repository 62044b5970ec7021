/**
 * A remote's code chunk that fails to download (webpack's `ChunkLoadError`, a failed dynamic `import()`):
 * most often the tab's release is no longer served (a rollback, retention) or a deploy replaced the
 * files. The Desk then asks discovery for the service's current remote once and loads again; a second
 * failure becomes `remote_chunk_failed`, whose words tell the user to reload the page
 * (docs/mfe-teams.md#releases).
 */
import { SdkError } from '../../sdk/errors';

/** The code of a remote's chunk that failed again after the retry against the current release. */
export const CHUNK_FAILED = 'remote_chunk_failed';

/** What browsers and webpack say when a chunk or a dynamically imported module cannot be fetched. */
const CHUNK_MESSAGE =
  /Loading (?:CSS )?chunk \S+ failed|Failed to fetch dynamically imported module|error loading dynamically imported module|Importing a module script failed/i;

/**
 * True for a failure to download code: a `ChunkLoadError`, a failed dynamic import, or an error caused by
 * one (the remote loader wraps the runtime's error as the `cause` of `remote_load_failed`).
 */
export function isChunkLoadError(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const e = current as { name?: unknown; message?: unknown; code?: unknown; cause?: unknown };
    if (e.name === 'ChunkLoadError' || e.code === CHUNK_FAILED) return true;
    if (typeof e.message === 'string' && CHUNK_MESSAGE.test(e.message)) return true;
    current = e.cause;
  }
  return false;
}

/**
 * Runs `load`; when it fails to download a chunk, `reResolve` (ask discovery for the service's current
 * remote and register it) and `load` once more. A chunk failure again rejects with `remote_chunk_failed`;
 * any other failure is rethrown as it is.
 */
export async function withChunkRetry<T>(
  service: string,
  load: () => Promise<T>,
  reResolve: () => Promise<void>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isChunkLoadError(error)) throw error;
  }
  await reResolve();
  try {
    return await load();
  } catch (error) {
    if (!isChunkLoadError(error)) throw error;
    throw new SdkError(
      CHUNK_FAILED,
      `Part of the UI remote of "${service}" could not be downloaded, also from its current release.`,
      { cause: error },
    );
  }
}
