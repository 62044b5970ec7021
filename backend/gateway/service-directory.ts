import type { ServiceManifest } from '../../src/protocol';

export type { ServiceManifest };

/** Called with the full manifest list whenever a manifest appears, changes or goes away. */
export type DirectoryListener = (manifests: ServiceManifest[]) => void;

/**
 * Where the gateway learns which services exist, where their remotes and APIs live and which DocTypes each
 * owns. MONOLITH scans the installed apps (`createMonolithDirectory`); MACROSERVICE watches manifests on the
 * bus. The gateway routes and the discovery oracle only see this interface.
 */
export interface ServiceDirectory {
  /** Every known service's manifest, sorted by service name. */
  list(): ServiceManifest[];
  get(service: string): ServiceManifest | undefined;
  /** The service owning a full DocType name, or undefined when no service declares it. */
  ownerOf(doctype: string): string | undefined;
  /** Registers a change listener; returns the function that removes it. */
  subscribe(listener: DirectoryListener): () => void;
}

/**
 * A fixed directory over the given manifests: browser-safe, for MSW mocks and tests that need a directory
 * without the filesystem or a bus. The first manifest listing a DocType owns it.
 */
export function createStaticDirectory(manifests: readonly ServiceManifest[]): ServiceDirectory {
  const sorted = [...manifests].sort((a, b) => a.service.localeCompare(b.service));
  const byService = new Map(sorted.map((m) => [m.service, m]));
  const owners = new Map<string, string>();
  for (const m of manifests) for (const d of m.doctypes) if (!owners.has(d)) owners.set(d, m.service);
  return {
    list: () => [...sorted],
    get: (service) => byService.get(service),
    ownerOf: (doctype) => owners.get(doctype),
    subscribe: () => () => {},
  };
}

/**
 * `inner` as its readers see it through `rewrite` (every manifest it lists, gets and announces), ownership
 * unchanged. `alsoChangesOn`, when given, registers for other changes that alter what `rewrite` gives: its
 * listeners then hear the rewritten list again.
 */
export function rewrittenDirectory(
  inner: ServiceDirectory,
  rewrite: (manifest: ServiceManifest) => ServiceManifest,
  alsoChangesOn?: (listener: () => void) => () => void,
): ServiceDirectory {
  return {
    list: () => inner.list().map(rewrite),
    get: (service) => {
      const m = inner.get(service);
      return m && rewrite(m);
    },
    ownerOf: (doctype) => inner.ownerOf(doctype),
    subscribe: (listener) => {
      const offInner = inner.subscribe((list) => listener(list.map(rewrite)));
      const offOther = alsoChangesOn?.(() => listener(inner.list().map(rewrite)));
      return () => {
        offInner();
        offOther?.();
      };
    },
  };
}
