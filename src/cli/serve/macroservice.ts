import { basename, join } from 'node:path';
import { connectBus } from '../../../backend/bus/connect-bus';
import type { PlatformConfig } from '../../../backend/config/schema';
import { claimDataDir, restrictTree, serviceDataDir } from '../../../backend/data-dir/data-dir';
import { createCleanupStack } from '../../../backend/lifecycle/cleanup-stack';
import { startGateway } from '../../../backend/roots/gateway';
import { startService } from '../../../backend/roots/service';
import { PlatformError } from '../../contract';
import { enableAppModules } from './app-modules';

/**
 * The MACROSERVICE runner of `m serve` (`--mode macroservice` or `PLATFORM_MODE=macroservice`):
 * - without `--app`: a gateway (discovery from NATS, no local apps, forwarding to the services);
 * - with `--app <name>`: one service process serving that app.
 * NATS unavailable at start is retried with backoff (a log line per attempt) until it answers or the
 * process receives SIGINT/SIGTERM.
 */
export async function runMacroservice(
  config: PlatformConfig,
  flags: { apps: string[] },
): Promise<{ stop(): Promise<void> }> {
  if (flags.apps.length > 1) {
    throw new PlatformError(
      'usage',
      'a service process serves one app: give --app once (or none for a gateway)',
    );
  }
  await enableAppModules(flags.apps);
  const log = (line: string) => console.error(line);
  // A signal while NATS is still unreachable ends the retry loop (the start then fails cleanly).
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const stack = createCleanupStack(log);
  try {
    const app = flags.apps[0];
    // One process per data directory (a service keeps its state in `<data_dir>/services/<app>`), private to
    // this user; a service restarted after a crash takes its stale lock over. An app given as a folder is
    // named by the folder's name.
    const appName = app ? basename(app) : undefined;
    const dataDir = appName ? serviceDataDir(config.server.data_dir, appName) : config.server.data_dir;
    const owned = await claimDataDir(dataDir, appName ? `the ${appName} service` : 'the gateway');
    stack.defer(() => owned.release());
    const bus = await connectBus(
      config,
      log,
      appName ? `desk-service-${appName}` : 'desk-gateway',
      abort.signal,
    );
    stack.defer(() => bus.close());
    if (app) {
      const service = await startService(config, { app, log, bus });
      stack.defer(() => service.close());
      console.log(`Service ${app} on ${service.url} (manifest rev ${service.manifest()?.rev})`);
    } else {
      const gateway = await startGateway(config, { log, bus });
      stack.defer(() => gateway.close());
      console.log(`Desk (MACROSERVICE gateway) on ${gateway.ctx.publicUrl}/desk/`);
    }
    await restrictTree(owned.dir).catch((err: Error) => log(`m serve: ${err.message}`));
    return { stop: () => stack.close() };
  } catch (err) {
    await stack.close();
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
