import { appFolderOf, isAppPath, loadInstalledApps } from '../../../backend/apps';
import type { PlatformConfig } from '../../../backend/config/schema';
import { claimDataDir, restrictTree } from '../../../backend/data-dir/data-dir';
import { startMonolith } from '../../../backend/roots/monolith';
import { startReloadableMonolith } from '../../../backend/roots/reloadable-monolith';
import { enableAppModules, enableAppReloads } from './app-modules';
import { watchAppSources } from './app-watch';
import type { ModeRunner, ServeFlags } from './mode-runner';

/** A started MONOLITH as the runner sees it: its public URL and how to stop it. */
interface Started {
  publicUrl: string;
  close(): Promise<void>;
}

/**
 * `--watch` with app folders: a MONOLITH whose apps are loaded again when a folder's definitions change, so
 * a new DocType (with its database migration) or a changed one is served without restarting the process.
 */
async function startWatching(config: PlatformConfig, log: (line: string) => void): Promise<Started> {
  const dirs = config.apps.filter(isAppPath).map((spec) => appFolderOf(spec));
  enableAppReloads(dirs);
  const monolith = await startReloadableMonolith(config, { log });
  let generation = 0;
  const stop = watchAppSources(dirs, (files) => {
    generation += 1;
    const started = Date.now();
    console.log(`m serve: ${files.join(', ')} changed: loading the apps again ...`);
    void loadInstalledApps(config.apps, { reload: generation })
      .then((apps) => monolith.reload(apps))
      .then(
        () => {
          const doctypes = monolith.ctx().doctypes.list().length;
          console.log(`m serve: apps reloaded in ${Date.now() - started} ms (${doctypes} DocTypes)`);
        },
        (err: Error) => console.error(`m serve: the apps were not reloaded: ${err.message}`),
      );
  });
  return {
    publicUrl: monolith.ctx().publicUrl,
    async close() {
      stop();
      await monolith.close();
    },
  };
}

/**
 * MONOLITH: every installed app in one process, the embedded database under the data directory, the
 * gateway, data API and Desk on one port. When no `server.public_url` is configured, manifest URLs use the
 * port actually bound (so `--port 0` works). With `--watch`, app folders are loaded again when they change.
 */
export const runMonolith: ModeRunner = async (config: PlatformConfig, flags: ServeFlags) => {
  await enableAppModules(config.apps);
  // One process per data directory: the embedded database and the record names it hands out are not safe to
  // share; the directory and what it holds are made private to this user.
  const owned = await claimDataDir(config.server.data_dir);
  const log = (line: string) => console.error(line);
  let monolith: Started;
  try {
    if (flags.watch && config.apps.some(isAppPath)) monolith = await startWatching(config, log);
    else {
      const started = await startMonolith(config, { log });
      monolith = { publicUrl: started.ctx.publicUrl, close: () => started.close() };
    }
  } catch (err) {
    owned.release();
    throw err;
  }
  // A new embedded database is unpacked with world-readable modes: make it private too.
  await restrictTree(owned.dir).catch((err: Error) => console.error(`m serve: ${err.message}`));
  const { publicUrl } = monolith;
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
