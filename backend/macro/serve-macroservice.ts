import { basename } from 'node:path';
import type { PlatformConfig } from '../config/schema';
import { PlatformError } from '../http/errors';
import { connectBus } from './connect-bus';
import { startGateway } from './start-gateway';
import { startService } from './start-service';

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
  const log = (line: string) => console.error(line);
  // A signal while NATS is still unreachable ends the retry loop (the start then fails cleanly).
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const bus = await connectBus(
      config,
      log,
      flags.apps[0] ? `desk-service-${basename(flags.apps[0])}` : 'desk-gateway',
      abort.signal,
    );
    const app = flags.apps[0];
    const failed = async (err: unknown) => {
      await bus.close();
      throw err;
    };
    if (app) {
      const service = await startService(config, { app, log, bus }).catch(failed);
      console.log(`Service ${app} on ${service.url} (manifest rev ${service.manifest()?.rev})`);
      return {
        async stop() {
          await service.close();
          await bus.close();
        },
      };
    }
    const gateway = await startGateway(config, { log, bus }).catch(failed);
    console.log(`Desk (MACROSERVICE gateway) on ${gateway.ctx.publicUrl}/desk/`);
    return {
      async stop() {
        await gateway.close();
        await bus.close();
      },
    };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
