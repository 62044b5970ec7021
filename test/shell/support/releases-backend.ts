/**
 * The releases API for view tests: MONOLITH's release service over an in-memory database and a temporary
 * folder (opening the database takes seconds on a busy machine: give the hook that calls
 * {@link openReleasesBackend} the node project's hook timeout), whose routes the mock backend mounts (`startBackend({ releases: backend.routes })`), and a way
 * to publish a small build of a sample app as a given user.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { crmApp } from '../../../backend/apps/crm/app';
import { stockApp } from '../../../backend/apps/stock/app';
import { supportApp } from '../../../backend/apps/support/app';
import type { Database } from '../../../backend/db/database';
import { openPglite } from '../../../backend/db/pglite';
import type { AppEnv } from '../../../backend/http/env';
import { type ContractFingerprint, contractFingerprint } from '../../../backend/releases/fingerprint';
import { sha384Of } from '../../../backend/releases/release-files';
import { ReleaseService } from '../../../backend/releases/release-service';
import { releaseRoutes } from '../../../backend/releases/routes';

/** A release service and its routes; `close` drops the database and the folder. */
export interface ReleasesBackend {
  service: ReleaseService;
  routes: Hono<AppEnv>;
  /** Publishes a build of `service` (default crm) whose entry names `label`; returns the release version. */
  publish(
    label: string,
    options?: { service?: string; packageVersion?: string; fingerprint?: ContractFingerprint },
  ): Promise<string>;
  close(): Promise<void>;
}

/** The contracts the sample apps run with. */
const RUNNING = new Map([crmApp, stockApp, supportApp].map((a) => [a.name, contractFingerprint(a)]));

/** The contract a sample app runs with, to change for a release built against another one. */
export function runningFingerprint(service: string): ContractFingerprint {
  return structuredClone(RUNNING.get(service)!);
}

/** Opens a release service for the sample apps (crm, stock, support). */
export async function openReleasesBackend(): Promise<ReleasesBackend> {
  const root = mkdtempSync(join(tmpdir(), 'desk-view-releases-'));
  // The release tables only (the service creates them), not every migration of the platform.
  const db: Database = await openPglite();
  const service = await ReleaseService.open({
    db,
    root,
    keep: 5,
    running: (name) => RUNNING.get(name),
    log: () => {},
  });
  return {
    service,
    routes: releaseRoutes(service),
    async publish(label, options = {}) {
      const name = options.service ?? 'crm';
      const files = {
        'remoteEntry.js': `window.release = ${JSON.stringify(label)};\n`,
        'chunk.0123abcd.js': `/* chunk of ${label} */\n`,
      };
      const bytes = Object.entries(files).map(([path, text]) => ({
        path,
        bytes: new TextEncoder().encode(text),
      }));
      const actor = { user: 'Administrator' };
      const staged = await service.stage(
        name,
        {
          packageVersion: options.packageVersion ?? '1.0.0',
          files: bytes.map((f) => ({ path: f.path, sha384: sha384Of(f.bytes), size: f.bytes.byteLength })),
          mfManifest: null,
          fingerprint: options.fingerprint ?? RUNNING.get(name)!,
        },
        actor,
      );
      await service.upload(name, staged.version, bytes, actor);
      return staged.version;
    },
    async close() {
      await db.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
