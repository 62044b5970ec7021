import { join, resolve } from 'node:path';
import type { InstalledApp, Logger } from '../../src/contract';
import type { Bus } from '../bus/bus';
import type { PlatformConfig } from '../config/schema';
import type { Database } from '../db/database';
import type { CleanupStack } from '../lifecycle/cleanup-stack';
import { type ContractFingerprint, contractFingerprint } from './fingerprint';
import type { ReleaseFileStore } from './release-file-store';
import { ReleaseService } from './release-service';
import { announceReleaseChange, followReleaseChanges } from './release-sync';

/**
 * The release service of a MONOLITH process: files under `<data_dir>/releases`, records in its database,
 * `releases.keep` retention, and the running contract of each installed app computed once (an app's
 * DocTypes and methods do not change while the process runs).
 */
export async function openReleases(
  config: PlatformConfig,
  db: Database,
  apps: readonly InstalledApp[],
  log: Logger,
): Promise<ReleaseService> {
  const running = new Map<string, ContractFingerprint>(apps.map((a) => [a.name, contractFingerprint(a)]));
  return ReleaseService.open({
    db,
    root: join(resolve(config.server.data_dir), 'releases'),
    keep: config.releases.keep,
    stagedMaxAgeMs: config.releases.staged_max_age_hours * 3_600_000,
    running: (service) => running.get(service),
    log,
  });
}

/** What {@link openGatewayReleases} needs besides the configuration and the database. */
export interface GatewayReleaseParts {
  bus: Bus;
  /** The contract each service runs with, as its gateway last heard it (backend/releases/remote-contracts.ts). */
  running: (service: string) => ContractFingerprint | undefined;
  /** Where the files are: with the services owning the remotes (backend/releases/remote-release-files.ts). */
  files: ReleaseFileStore;
  /** The manifests' heartbeat: the bound on how long a lost change notification leaves this gateway behind. */
  heartbeatMs: number;
  log: Logger;
  stack: CleanupStack;
}

/**
 * The release service of a MACROSERVICE gateway (docs/operators.md#releases-in-macroservice): records and
 * channels in the database the gateways share (`server.database_url`), files with the owning service (whose
 * folder `root` then does not name), each change announced on the bus
 * and every other gateway's view read again on that notification or, at the latest, at its next heartbeat.
 */
export async function openGatewayReleases(
  config: PlatformConfig,
  db: Database,
  parts: GatewayReleaseParts,
): Promise<ReleaseService> {
  const releases = await ReleaseService.open({
    db,
    root: join(resolve(config.server.data_dir), 'releases'),
    keep: config.releases.keep,
    stagedMaxAgeMs: config.releases.staged_max_age_hours * 3_600_000,
    running: parts.running,
    files: parts.files,
    log: parts.log,
    announce: announceReleaseChange(parts.bus, parts.log),
  });
  const stop = followReleaseChanges({
    releases,
    bus: parts.bus,
    heartbeatMs: parts.heartbeatMs,
    log: parts.log,
  });
  parts.stack.defer(stop);
  return releases;
}
