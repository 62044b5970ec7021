/**
 * A remote's `mf-manifest.json`, read before its code runs. Module Federation builds (the enhanced plugin
 * for webpack or Rspack, `createRemoteConfig`) write it next to `remoteEntry.js`: the container's name, the
 * modules it exposes and the shared packages with the versions it requires. The Desk checks these against
 * the remote contract (docs/mfe-teams.md#a-remote-from-your-own-bundler-config) so a remote that cannot work
 * is refused with its reason instead of crashing inside React.
 */
import type { RemoteDiagnosis } from './diagnosis';
import { type DeclaredShared, describeIncompatible, incompatibleShared } from './shared-versions';

/** Name of the manifest beside every remote's entry. */
export const REMOTE_MANIFEST_FILE = 'mf-manifest.json';

/** What the Desk reads from a remote's manifest. */
export interface RemoteManifestView {
  /** The container's global name. */
  name: string;
  /** The exposed module paths (`./views`, ...). */
  exposes: string[];
  shared: DeclaredShared[];
}

/** The manifest URL of an entry: `mf-manifest.json` in the entry's directory, same query. */
export function manifestUrlOf(entry: string): string | undefined {
  try {
    const url = new URL(REMOTE_MANIFEST_FILE, entry);
    return url.href;
  } catch {
    return undefined;
  }
}

/** Reads the fields the Desk uses from a parsed manifest; undefined when it is not one. */
export function parseRemoteManifest(raw: unknown): RemoteManifestView | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const m = raw as {
    name?: unknown;
    metaData?: { globalName?: unknown; name?: unknown };
    exposes?: unknown;
    shared?: unknown;
  };
  const name = m.metaData?.globalName ?? m.metaData?.name ?? m.name;
  if (typeof name !== 'string' || !Array.isArray(m.exposes) || !Array.isArray(m.shared)) return undefined;
  const exposes = m.exposes
    .map((e) => (e as { path?: unknown })?.path)
    .filter((p): p is string => typeof p === 'string');
  const shared = m.shared
    .filter((s): s is Record<string, unknown> => typeof s === 'object' && s !== null)
    .filter((s) => typeof s.name === 'string')
    .map((s) => ({
      name: s.name as string,
      ...(typeof s.requiredVersion === 'string' ? { requiredVersion: s.requiredVersion } : {}),
      ...(typeof s.version === 'string' ? { version: s.version } : {}),
    }));
  return { name, exposes, shared };
}

/**
 * Fetches the manifest beside `entry` (no cookies). Undefined when there is none or it cannot be read: a
 * remote need not publish one, and the share scope is checked again once its container is initialised.
 */
export async function fetchRemoteManifest(
  entry: string,
  fetchImpl: typeof fetch,
): Promise<RemoteManifestView | undefined> {
  const url = manifestUrlOf(entry);
  if (!url) return undefined;
  try {
    const response = await fetchImpl(url, { credentials: 'omit', mode: 'cors' });
    if (!response.ok) return undefined;
    return parseRemoteManifest(await response.json());
  } catch {
    return undefined;
  }
}

/**
 * The requirements a remote's manifest shows it breaks: its container is named after another service, it
 * does not expose `exposed`, or it requires a shared package at a version the Desk (`desk`: package ->
 * version) cannot serve. The diagnosis has the code of the first and names every one, so a team fixes them
 * all at once. Undefined when the manifest shows none.
 */
export function checkRemoteManifest(
  manifest: RemoteManifestView,
  service: string,
  exposed: string,
  desk: Readonly<Record<string, string>>,
  satisfies: (version: string, range: string) => boolean,
): RemoteDiagnosis | undefined {
  const problems: RemoteDiagnosis[] = [];
  if (manifest.name !== service) {
    problems.push({
      code: 'remote_container_missing',
      detail: `its container is named "${manifest.name}", not "${service}" (name: '${service}')`,
    });
  }
  if (!manifest.exposes.includes(exposed)) {
    problems.push({
      code: 'remote_views_missing',
      detail: `it exposes ${manifest.exposes.join(', ') || 'nothing'}, not ${exposed} (exposes: { '${exposed}': './src/views' })`,
    });
  }
  const found = incompatibleShared(manifest.shared, desk, satisfies);
  if (found.length)
    problems.push({ code: 'remote_shared_incompatible', detail: describeIncompatible(found) });
  const [first] = problems;
  if (!first) return undefined;
  return { code: first.code, detail: problems.map((p) => p.detail).join('; and ') };
}
