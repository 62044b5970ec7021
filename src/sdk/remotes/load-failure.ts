/**
 * What a failed `loadRemote` means, for the remote contract's diagnoses
 * (docs/mfe-teams.md#a-remote-from-your-own-bundler-config). Loaded only when a load fails.
 */
import type { CspRefusal, RemoteDiagnosis } from './diagnosis';

/** The directory URL an entry's files live in (`https://x/app/remoteEntry.js` -> `https://x/app/`). */
function entryBase(entry: string): string {
  try {
    return new URL('.', entry).href;
  } catch {
    return entry;
  }
}

/**
 * The diagnosis of a failed `loadRemote`, from the runtime's error and the CSP refusals seen on the page:
 * a script refusal for the entry's files (or an `eval` in them) is `remote_csp_refused`; the federation
 * runtime's "no exports" error (RUNTIME-001, RUNTIME-002) is `remote_container_missing`; its "does not
 * expose" (RUNTIME-014) is `remote_views_missing`. Undefined when the failure is none of these (a network
 * error, a 404): those may pass, the rest cannot.
 */
export function classifyLoadFailure(
  service: string,
  entry: string,
  exposed: string,
  cause: unknown,
  refusals: readonly CspRefusal[],
): RemoteDiagnosis | undefined {
  const base = entryBase(entry);
  const refusal = refusals.find(
    (r) =>
      r.directive.startsWith('script-src') &&
      (r.blockedURI.startsWith(base) || (r.blockedURI === 'eval' && r.sourceFile.startsWith(base))),
  );
  if (refusal) {
    return {
      code: 'remote_csp_refused',
      detail:
        refusal.blockedURI === 'eval'
          ? `the Desk's Content-Security-Policy refused eval() in ${refusal.sourceFile || entry}; build without an eval devtool (devtool: 'cheap-module-source-map' or false).`
          : `the Desk's Content-Security-Policy refused the script ${refusal.blockedURI}; serve the remote from the origin its service manifest names.`,
    };
  }
  const message = String((cause as { message?: unknown } | null)?.message ?? cause);
  if (/RUNTIME-001|RUNTIME-002/.test(message)) {
    return {
      code: 'remote_container_missing',
      detail: `${entry} defines no Module Federation container named "${service}"; name the container after the service (name: '${service}', library: { type: 'window', name: '${service}' }).`,
    };
  }
  if (/RUNTIME-014|does not exist in container|does not expose/i.test(message)) {
    return {
      code: 'remote_views_missing',
      detail: `the container "${service}" does not expose ${exposed}; add exposes: { '${exposed}': './src/views' } to its Module Federation options.`,
    };
  }
  return undefined;
}
