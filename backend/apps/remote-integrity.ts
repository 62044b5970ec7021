import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * The Subresource Integrity value (W3C SRI, `sha384-<base64>`) of a remote's `remoteEntry.js`, published in
 * its service manifest: the Desk loads the entry only when the bytes it receives have this hash. Undefined
 * when the file cannot be read.
 */
export function remoteEntryIntegrity(file: string): string | undefined {
  try {
    return `sha384-${createHash('sha384').update(readFileSync(file)).digest('base64')}`;
  } catch {
    return undefined;
  }
}

/** Pattern of an SRI value the platform publishes (sha384 only). */
export const INTEGRITY_PATTERN = /^sha384-[A-Za-z0-9+/]{64}$/;
