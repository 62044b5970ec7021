import type { PlatformConfig } from '../../../backend/config/schema';
import { claimDataDir, restrictTree } from '../../../backend/data-dir/data-dir';
import { startMonolith } from '../../../backend/roots/monolith';
import { enableAppModules } from './app-modules';
import type { ModeRunner } from './mode-runner';

/**
 * MONOLITH: every installed app in one process, the embedded database under the data directory, the
 * gateway, data API and Desk on one port. When no `server.public_url` is configured, manifest URLs use the
 * port actually bound (so `--port 0` works).
 */
export const runMonolith: ModeRunner = async (config: PlatformConfig) => {
  await enableAppModules(config.apps);
  // One process per data directory: the embedded database and the record names it hands out are not safe to
  // share; the directory and what it holds are made private to this user.
  const owned = await claimDataDir(config.server.data_dir);
  let monolith: Awaited<ReturnType<typeof startMonolith>>;
  try {
    monolith = await startMonolith(config, { log: (line) => console.error(line) });
  } catch (err) {
    owned.release();
    throw err;
  }
  // A new embedded database is unpacked with world-readable modes: make it private too.
  await restrictTree(owned.dir).catch((err: Error) => console.error(`m serve: ${err.message}`));
  const { publicUrl } = monolith.ctx;
  const where = config.server.database_url
    ? 'PostgreSQL (PLATFORM_DATABASE_URL)'
    : `${config.server.data_dir}/db`;
  console.log(`Desk: ${publicUrl}/desk/`);
  console.log(`Gateway: ${publicUrl}/api/gateway/remotes  (apps: ${config.apps.join(', ')}; data: ${where})`);
  return {
    async stop() {
      await monolith.close();
      owned.release();
    },
  };
};
