/**
 * The state one mock backend shares across its handler groups: the installed apps (the real definitions from
 * backend/apps), the service directory over their manifests, the encryption policy (the backend's
 * `createEncryptionPolicy`), the key ring and an in-memory record store (seeded unless asked empty).
 * Browser-safe: the browser worker and the Node tests build it the same way and differ only in the key ring.
 */
import { crmApp } from '../../backend/apps/crm/app';
import { stockApp } from '../../backend/apps/stock/app';
import type { InstalledApp } from '../../backend/apps/types';
import { createDocTypeRegistry, type DocTypeRegistry } from '../../backend/doctypes/registry';
import { createStaticDirectory, type ServiceDirectory } from '../../backend/gateway/service-directory';
import { createEncryptionPolicy, type EncryptionPolicy } from '../../backend/security/encryption-policy';
import type { EncryptionMode, ServiceManifest } from '../../src/protocol';
import type { MockKeyRing } from './key-ring';
import { createRecordStore, type MockRecordStore } from './record-store';
import { seedRecords } from './seed-records';

/** Options of {@link createMockEnvironment}. */
export interface MockEnvironmentOptions {
  keyRing: MockKeyRing;
  /** Payload-encryption mode; default `metadata` (the platform's default). */
  mode?: EncryptionMode;
  /** Extra selective-mode routes (merged with the built-in ones). */
  routes?: string[];
  /** Apps to install; default the sample apps `crm` and `stock`. */
  apps?: InstalledApp[];
  /** Origin the manifests point at (`''` = the page's origin); default `''`. */
  baseUrl?: string;
  /** Services whose manifest has a UI remote (`url`); default none (data-only, nothing to fetch offline). */
  remotes?: string[];
  /**
   * What the record store starts with: `seeded` (default) a few deterministic records per sample DocType
   * (./seed-records.ts), so the offline Desk lists something; `empty` for tests that count what they store.
   */
  records?: 'seeded' | 'empty';
}

/** What the handler groups share. */
export interface MockEnvironment {
  apps: InstalledApp[];
  doctypes: DocTypeRegistry;
  directory: ServiceDirectory;
  manifests: ServiceManifest[];
  /** Mutable: tests switch modes between cases with {@link MockEnvironment.setMode}. */
  policy: EncryptionPolicy;
  setMode(mode: EncryptionMode, routes?: string[]): void;
  keyRing: MockKeyRing;
  store: MockRecordStore;
}

/**
 * Manifests of `apps` as a MONOLITH gateway would publish them (backend/gateway/monolith-directory.ts):
 * `apiUrl` `<base>/api`, `metaUrl` `<base>/api/meta/<app>`, and a remote entry under `/desk/assets/`.
 */
export function manifestsOf(
  apps: readonly InstalledApp[],
  baseUrl = '',
  remotes: readonly string[] = [],
): ServiceManifest[] {
  const base = baseUrl.replace(/\/+$/, '');
  return apps.map((app) => ({
    service: app.name,
    rev: 1,
    url: remotes.includes(app.name) ? `${base}/desk/assets/${app.name}/remoteEntry.js` : null,
    apiUrl: `${base}/api`,
    metaUrl: `${base}/api/meta/${app.name}`,
    doctypes: app.doctypes.map((d) => d.name),
  }));
}

/** Builds a mock backend's shared state. */
export function createMockEnvironment(options: MockEnvironmentOptions): MockEnvironment {
  const apps = options.apps ?? [crmApp, stockApp];
  const doctypes = createDocTypeRegistry(apps);
  const manifests = manifestsOf(apps, options.baseUrl, options.remotes);
  const env: MockEnvironment = {
    apps,
    doctypes,
    directory: createStaticDirectory(manifests),
    manifests,
    policy: createEncryptionPolicy({
      mode: options.mode ?? 'metadata',
      routes: options.routes ?? [],
      doctypes,
    }),
    setMode(mode, routes = []) {
      env.policy = createEncryptionPolicy({ mode, routes, doctypes });
    },
    keyRing: options.keyRing,
    store: createRecordStore(),
  };
  if (options.records !== 'empty') seedRecords(env.store, doctypes);
  return env;
}
