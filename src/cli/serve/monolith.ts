import type { PlatformConfig } from '../../../backend/config/schema';
import { startMonolith } from '../../../backend/roots/monolith';
import type { ModeRunner } from '../commands/serve';

/**
 * MONOLITH: every installed app in one process, the embedded database under the data directory, the
 * gateway, data API and Desk on one port. When no `server.public_url` is configured, manifest URLs use the
 * port actually bound (so `--port 0` works).
 */
export const runMonolith: ModeRunner = async (config: PlatformConfig) => {
  const monolith = await startMonolith(config, { log: (line) => console.error(line) });
  const { publicUrl } = monolith.ctx;
  const where = config.server.database_url
    ? 'PostgreSQL (PLATFORM_DATABASE_URL)'
    : `${config.server.data_dir}/db`;
  console.log(`Desk: ${publicUrl}/desk/`);
  console.log(`Gateway: ${publicUrl}/api/gateway/remotes  (apps: ${config.apps.join(', ')}; data: ${where})`);
  return { stop: () => monolith.close() };
};
