import { join, resolve } from 'node:path';
import type { InstalledApp, Logger } from '../../src/contract';
import type { PlatformConfig } from '../config/schema';
import type { Database } from '../db/database';
import { type ContractFingerprint, contractFingerprint } from './fingerprint';
import { ReleaseService } from './release-service';

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
    running: (service) => running.get(service),
    log,
  });
}
