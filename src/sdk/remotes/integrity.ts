/**
 * Subresource Integrity for remote entries. A service manifest carries the SRI hash (`sha384-<base64>`) of
 * its `remoteEntry.js`; the Module Federation runtime's `createScript` hook gives the entry's script tag
 * that `integrity` (and `crossorigin="anonymous"`, which SRI needs), so the browser refuses to run an entry
 * that changed after its manifest was published. A refused entry looks like any failed script to the
 * runtime; {@link verifyIntegrity} tells the two apart so the Desk can name the cause.
 */

/** The slice of a Module Federation runtime plugin this module uses. */
export interface ScriptPlugin {
  name: string;
  createScript(args: { url: string }): HTMLScriptElement | undefined;
}

/** The URL without query and fragment: the runtime may decorate entry URLs. */
export function entryKey(url: string): string {
  return url.split(/[?#]/, 1)[0]!;
}

/**
 * A runtime plugin that adds `integrity` to the script tag of every entry `lookup` knows a hash for.
 * Entries without a hash load as before.
 */
export function integrityPlugin(lookup: (url: string) => string | undefined): ScriptPlugin {
  return {
    name: 'desk-remote-integrity',
    createScript({ url }) {
      const integrity = lookup(entryKey(url));
      if (!integrity || typeof document === 'undefined') return undefined;
      const script = document.createElement('script');
      script.src = url;
      script.integrity = integrity;
      script.crossOrigin = 'anonymous';
      return script;
    },
  };
}

function toBase64(bytes: ArrayBuffer): string {
  let binary = '';
  for (const byte of new Uint8Array(bytes)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Outcome of {@link verifyIntegrity}: the hash of the bytes served now, or why there is none. */
export type IntegrityCheck = { status: 'match' | 'mismatch'; actual: string } | { status: 'unknown' };

/**
 * Fetches `url` (no cookies, no cache) and compares the sha384 of its bytes with `expected`. `unknown` when
 * it cannot be fetched or `expected` is not a sha384 value.
 */
export async function verifyIntegrity(
  url: string,
  expected: string,
  fetchImpl: typeof fetch = fetch,
): Promise<IntegrityCheck> {
  if (!expected.startsWith('sha384-')) return { status: 'unknown' };
  try {
    const response = await fetchImpl(url, { cache: 'no-store', credentials: 'omit', mode: 'cors' });
    if (!response.ok) return { status: 'unknown' };
    const digest = await crypto.subtle.digest('SHA-384', await response.arrayBuffer());
    const actual = `sha384-${toBase64(digest)}`;
    return { status: actual === expected ? 'match' : 'mismatch', actual };
  } catch {
    return { status: 'unknown' };
  }
}
