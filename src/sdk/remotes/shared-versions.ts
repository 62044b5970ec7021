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

/**
 * The shared singletons whose versions a remote must accept before it runs, with the subpaths that travel
 * with each (a remote declaring `react/jsx-runtime` at React 18 breaks on React 19 as surely as `react`).
 */
export const NEGOTIATED_SHARED: Readonly<Record<string, string>> = {
  react: 'react',
  'react/jsx-runtime': 'react',
  'react/jsx-dev-runtime': 'react',
  'react-dom': 'react-dom',
  'react-dom/client': 'react-dom',
  '@refinedev/core': '@refinedev/core',
  '@tanstack/react-query': '@tanstack/react-query',
};

/** What a remote declares about one shared package (from its `mf-manifest.json` or its share scope). */
export interface DeclaredShared {
  name: string;
  /** The range it requires (`^19.0.0`); absent or `false` when it requires none. */
  requiredVersion?: string | false;
  /** The version it was built with, when it says. */
  version?: string;
}

/** A shared package the remote requires at a range the Desk's version does not satisfy. */
export interface SharedIncompatibility {
  package: string;
  /** What the remote requires (its range, else the version it was built with). */
  required: string;
  /** The version the Desk runs. */
  deskVersion: string;
}

/** The major of a version (`19` of `19.3.1`), or undefined. */
function major(version: string): string | undefined {
  return /^\D*(\d+)/.exec(version)?.[1];
}

/**
 * The declared shared packages the Desk's versions (`desk`: package -> version) cannot serve: a required
 * range the Desk's version does not satisfy, or, with no range, a built-with version of another major.
 * Packages the Desk does not share, or whose Desk version is unknown, are not judged.
 */
export function incompatibleShared(
  declared: readonly DeclaredShared[],
  desk: Readonly<Record<string, string>>,
  satisfies: (version: string, range: string) => boolean,
): SharedIncompatibility[] {
  const found = new Map<string, SharedIncompatibility>();
  for (const entry of declared) {
    const pkg = NEGOTIATED_SHARED[entry.name];
    const deskVersion = pkg ? desk[pkg] : undefined;
    if (!pkg || !deskVersion || found.has(pkg)) continue;
    const range = typeof entry.requiredVersion === 'string' ? entry.requiredVersion.trim() : '';
    if (range && range !== '*') {
      if (!satisfies(deskVersion, range)) found.set(pkg, { package: pkg, required: range, deskVersion });
    } else if (entry.version && major(entry.version) !== major(deskVersion)) {
      found.set(pkg, { package: pkg, required: entry.version, deskVersion });
    }
  }
  return [...found.values()];
}

/**
 * The versions the Desk provides, read from the share scope (registrations by `host`), for the packages of
 * {@link NEGOTIATED_SHARED}.
 */
export function deskSharedVersions(scopes: ShareScopeView | undefined, host: string): Record<string, string> {
  const scope = scopes?.default ?? {};
  const versions: Record<string, string> = {};
  for (const pkg of new Set(Object.values(NEGOTIATED_SHARED))) {
    const mine = Object.entries(scope[pkg] ?? {}).find(([, s]) => s.from === host)?.[0];
    if (mine) versions[pkg] = mine;
  }
  return versions;
}

/**
 * What `service` registered in the share scope when its container was initialised: each package with the
 * version it provides and the range it requires (before any of its modules ran).
 */
export function declaredInShareScope(scopes: ShareScopeView | undefined, service: string): DeclaredShared[] {
  const declared: DeclaredShared[] = [];
  for (const [name, versions] of Object.entries(scopes?.default ?? {})) {
    for (const [version, registration] of Object.entries(versions)) {
      if (registration.from !== service) continue;
      const requiredVersion = (registration as { shareConfig?: { requiredVersion?: unknown } }).shareConfig
        ?.requiredVersion;
      declared.push({
        name,
        version,
        ...(typeof requiredVersion === 'string' ? { requiredVersion } : {}),
      });
    }
  }
  return declared;
}

/**
 * The sentence naming both versions of each incompatibility (the service is named by the caller):
 * `requires react ^18.2.0, but the Desk runs react 19.3.1, so it was not run. ...`.
 */
export function describeIncompatible(found: readonly SharedIncompatibility[]): string {
  const parts = found.map(
    (f) => `${f.package} ${f.required}, but the Desk runs ${f.package} ${f.deskVersion}`,
  );
  const names = found.map((f) => f.package).join(', ');
  const example = major(found[0]?.deskVersion ?? '');
  return `requires ${parts.join('; and ')}, so it was not run. Share ${names} as ${
    found.length > 1 ? 'singletons' : 'a singleton'
  } with a range the Desk's version satisfies (e.g. requiredVersion: '^${example}').`;
}
