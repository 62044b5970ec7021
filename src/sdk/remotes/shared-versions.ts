/**
 * Shared-version checks. The Desk and every remote share `react` and `react-dom` as singletons: one copy
 * runs, so a remote built against another version runs against the Desk's. When the version a remote
 * registered in the share scope differs from the Desk's, the loader reports both versions.
 */

/** The packages whose versions must agree between the Desk and a remote. */
export const CHECKED_SHARED = ['react', 'react-dom'] as const;

/** A remote's shared package at another version than the Desk's. */
export interface SharedVersionMismatch {
  service: string;
  package: string;
  /** The version the remote was built with. */
  remoteVersion: string;
  /** The version the Desk runs. */
  deskVersion: string;
}

/** The slice of the federation runtime's share scope this check reads. */
export type ShareScopeView = Record<string, Record<string, Record<string, { from?: string }>>>;

/**
 * The mismatches between what `service` registered in the share scope and what `host` (the Desk's runtime
 * instance) registered, for {@link CHECKED_SHARED}.
 */
export function sharedVersionMismatches(
  scopes: ShareScopeView | undefined,
  service: string,
  host: string,
): SharedVersionMismatch[] {
  const scope = scopes?.default;
  if (!scope) return [];
  const found: SharedVersionMismatch[] = [];
  for (const pkg of CHECKED_SHARED) {
    const versions = Object.entries(scope[pkg] ?? {});
    const desk = versions.find(([, s]) => s.from === host)?.[0];
    const remote = versions.find(([, s]) => s.from === service)?.[0];
    if (desk && remote && desk !== remote) {
      found.push({ service, package: pkg, remoteVersion: remote, deskVersion: desk });
    }
  }
  return found;
}

/** The console line naming both versions. */
export function describeMismatch(m: SharedVersionMismatch): string {
  return `${m.service} was built with ${m.package} ${m.remoteVersion}, but the Desk runs ${m.package} ${m.deskVersion}: the remote runs against the Desk's copy. Rebuild it with the Desk's version.`;
}
