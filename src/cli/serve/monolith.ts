import { createApp } from '../../../backend/app';
import type { PlatformConfig } from '../../../backend/config/schema';
import { createContext, defaultPublicUrl } from '../../../backend/create-context';
import { claimDataDir, restrictTree } from '../../../backend/data-dir/data-dir';
import { startServer } from '../../../backend/server';
import type { ModeRunner } from '../commands/serve';

/**
 * MONOLITH: every installed app in one process, the embedded database under the data directory, the
 * gateway, data API and Desk on one port. When no `server.public_url` is configured, manifest URLs use the
 * port actually bound (so `--port 0` works).
 */
export const runMonolith: ModeRunner = async (config: PlatformConfig) => {
  // One process per data directory: the embedded database and the record names it hands out are not safe to
  // share; the directory and what it holds are made private to this user.
  const owned = await claimDataDir(config.server.data_dir);
  let ctx: Awaited<ReturnType<typeof createContext>>;
  try {
    ctx = await createContext(config, { log: (line) => console.error(line) });
    // A new embedded database is unpacked with world-readable modes: make it private too.
    await restrictTree(owned.dir);
  } catch (err) {
    owned.release();
    throw err;
  }
  let running: Awaited<ReturnType<typeof startServer>>;
  try {
    running = await startServer(createApp(ctx), {
      host: config.server.host,
      port: config.server.port,
      shutdownTimeoutMs: config.server.shutdown_timeout_ms,
    });
  } catch (err) {
    await ctx.close();
    owned.release();
    throw err;
  }
  if (!config.server.public_url) {
    ctx.publicUrl = defaultPublicUrl({ ...config, server: { ...config.server, port: running.port } });
    (ctx.directory as { refresh?: () => boolean }).refresh?.();
  }
  const where = config.server.database_url
    ? 'PostgreSQL (PLATFORM_DATABASE_URL)'
    : `${config.server.data_dir}/db`;
  console.log(`Desk: ${ctx.publicUrl}/desk/`);
  console.log(
    `Gateway: ${ctx.publicUrl}/api/gateway/remotes  (apps: ${config.apps.join(', ')}; data: ${where})`,
  );
  return {
    async stop() {
      await running.close();
      await ctx.close();
      owned.release();
    },
  };
};
