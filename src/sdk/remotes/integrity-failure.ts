/**
 * Naming a failed load whose entry has a published hash: the browser refuses to run an entry whose bytes no
 * longer match, which the runtime sees as any failed script, so the entry is fetched again and hashed.
 */
import { SdkError } from '../errors';
import { verifyIntegrity } from './integrity';

/**
 * The error for a failed load of `service`'s `exposed`: `remote_integrity_failed` when the entry's bytes no
 * longer match the published hash `expected` (the browser refused to run it), else `remote_load_failed`.
 */
export async function loadFailureOf(
  service: string,
  exposed: string,
  entry: string,
  expected: string | undefined,
  cause: unknown,
  fetchImpl?: typeof fetch,
): Promise<SdkError> {
  if (expected) {
    const check = await verifyIntegrity(entry, expected, fetchImpl);
    if (check.status === 'mismatch') {
      // The hashes are for the developer console; the Desk's notice stays short.
      console.error(
        `${service}: remoteEntry.js integrity mismatch: published ${expected}, served ${check.actual}`,
      );
      return new SdkError(
        'remote_integrity_failed',
        `The UI remote of "${service}" does not match the integrity hash its service published; it was not run.`,
        { cause },
      );
    }
  }
  return new SdkError('remote_load_failed', `The UI remote of "${service}" could not load ${exposed}.`, {
    cause,
  });
}
