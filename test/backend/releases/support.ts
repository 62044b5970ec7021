import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crmApp } from '../../../backend/apps/crm/app';
import { type ContractFingerprint, contractFingerprint } from '../../../backend/releases/fingerprint';
import { sha384Of } from '../../../backend/releases/release-files';
import { createTestApp, type TestApp } from '../../helpers/test-app';

/** A test app over a temporary data directory (release files are written there), and that directory. */
export interface ReleaseTestApp extends TestApp {
  dataDir: string;
}

/** The real MONOLITH app with its data directory in a temporary folder. */
export async function createReleaseTestApp(config: Record<string, unknown> = {}): Promise<ReleaseTestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'desk-releases-'));
  const t = await createTestApp({ config: { 'server.data_dir': dataDir, ...config } });
  return {
    ...t,
    dataDir,
    async close() {
      await t.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The contract the built-in crm app runs with. */
export function crmFingerprint(): ContractFingerprint {
  return contractFingerprint(crmApp);
}

/** A small remote build: `remoteEntry.js` naming `label`, and one chunk. */
export function buildFiles(label: string): Record<string, string> {
  return {
    'remoteEntry.js': `window.crmRelease = ${JSON.stringify(label)};\n`,
    'chunk.0123abcd.js': `/* chunk of ${label} */\n`,
    'mf-manifest.json': JSON.stringify({ id: 'crm', metaData: { buildInfo: { buildVersion: label } } }),
  };
}

/**
 * Publishes a build through the API (`publish`, then one `upload`) as the default Administrator; returns
 * the release version.
 */
export async function publish(
  t: TestApp,
  files: Record<string, string | Uint8Array>,
  options: {
    service?: string;
    packageVersion?: string;
    fingerprint?: ContractFingerprint;
    authorization?: string;
  } = {},
): Promise<string> {
  const service = options.service ?? 'crm';
  const entries = Object.entries(files).map(([path, content]) => ({
    path,
    bytes: typeof content === 'string' ? new TextEncoder().encode(content) : content,
  }));
  const headers = options.authorization ? { authorization: options.authorization } : undefined;
  const staged = await t.request('POST', `/api/releases/${service}/publish`, {
    headers,
    body: {
      packageVersion: options.packageVersion ?? '1.0.0',
      files: entries.map((e) => ({ path: e.path, sha384: sha384Of(e.bytes), size: e.bytes.byteLength })),
      fingerprint: options.fingerprint ?? crmFingerprint(),
      ...(typeof files['mf-manifest.json'] === 'string'
        ? { mfManifest: JSON.parse(files['mf-manifest.json']) as unknown }
        : {}),
    },
  });
  if (staged.status !== 200) throw new Error(`publish: ${staged.status} ${await staged.text()}`);
  const { data } = (await staged.json()) as { data: { version: string; missing: string[] } };
  if (data.missing.length === 0) return data.version;
  const uploaded = await t.request('POST', `/api/releases/${service}/upload`, {
    headers,
    body: {
      version: data.version,
      files: entries
        .filter((e) => data.missing.includes(e.path))
        .map((e) => ({ path: e.path, data: Buffer.from(e.bytes).toString('base64') })),
    },
  });
  if (uploaded.status !== 200) throw new Error(`upload: ${uploaded.status} ${await uploaded.text()}`);
  return data.version;
}

/** Sends a channel action (`promote`, `rollback`, `canary`, `pin`) and returns the response. */
export function act(t: TestApp, action: string, body: unknown, service = 'crm'): Promise<Response> {
  return t.request('POST', `/api/releases/${service}/${action}`, { body });
}
