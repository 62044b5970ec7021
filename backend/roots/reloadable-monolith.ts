import type { InstalledApp } from '../../src/contract';
import { createRpcRegistry } from '../apps/rpc-registry';
import type { PlatformConfig } from '../config/schema';
import type { AppContext } from '../context';
import { createDocTypeRegistry } from '../doctypes/registry';
import type { ListeningServer } from '../server';
import { boundPublicUrl } from './context';
import { createMonolith, type Monolith, type MonolithOptions } from './monolith';
import { bindServer, onCleanupStack } from './start';

/** A listening MONOLITH whose installed apps can be replaced without closing its port. */
export interface ReloadableMonolith {
  /** The address bound (`http://host:port`). */
  url: string;
  server: ListeningServer;
  /** The context of the apps now installed. */
  ctx(): AppContext;
  /**
   * Replaces the installed apps with `apps` (loaded again from their folders): checks them first (a DocType
   * or RPC method declared twice, a bad name), then lets the requests in flight finish (at most
   * `server.shutdown_timeout_ms`), closes the running context and builds one for `apps`, which migrates the
   * database for their DocTypes as a start does. Requests arriving meanwhile wait for the new one. When the new apps cannot start, the previous ones are started again and the error is
   * thrown. Reloads run one after the other.
   */
  reload(apps: InstalledApp[]): Promise<void>;
  /** Stops the server, then releases the context. Idempotent. */
  close(): Promise<void>;
}

/**
 * `m serve --watch` in MONOLITH mode (docs/mfe-teams.md#running-it): {@link startMonolith}, except that the
 * port stays bound across {@link ReloadableMonolith.reload}, so a developer's new or changed DocType is served
 * without restarting the process (sessions and records live in the database and survive).
 */
export async function startReloadableMonolith(
  config: PlatformConfig,
  options: MonolithOptions = {},
): Promise<ReloadableMonolith> {
  return onCleanupStack(options.log, async (stack) => {
    const server = await bindServer(config, stack);
    const publicUrl = options.publicUrl ?? boundPublicUrl(config, server.port);
    const build = (apps?: InstalledApp[]) => createMonolith(config, { ...options, publicUrl, apps });
    let running = await build(options.apps);
    let current: Promise<Monolith> = Promise.resolve(running);
    let installed = running.ctx.apps;
    // Requests being answered by the running apps: a reload lets them finish before it closes their context.
    let inFlight = 0;
    let idle: (() => void) | undefined;
    server.serve({
      fetch: async (request, env) => {
        const monolith = await current;
        inFlight += 1;
        try {
          return await monolith.app.fetch(request, env);
        } finally {
          inFlight -= 1;
          if (inFlight === 0) idle?.();
        }
      },
    });
    /** Resolves once no request is in flight, or after `server.shutdown_timeout_ms` (one that hangs is cut). */
    const drained = async () => {
      // A request that took the running apps just before the reload began counts itself on the next turn.
      await new Promise((resolve) => setImmediate(resolve));
      if (inFlight === 0) return;
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        idle = resolve;
        timer = setTimeout(resolve, config.server.shutdown_timeout_ms);
      });
      idle = undefined;
      clearTimeout(timer);
    };
    stack.defer(async () => (await current.catch(() => undefined))?.close());
    // Deferred last, so closing stops the server first: in-flight requests still need the context.
    stack.defer(() => server.close());

    let queue = Promise.resolve();
    const reload = (apps: InstalledApp[]) => {
      const step = queue.then(async () => {
        // Refused before anything stops: a broken definition leaves the running apps serving.
        createRpcRegistry(apps);
        createDocTypeRegistry(apps);
        let failure: unknown;
        const next = (async () => {
          await drained();
          await running.close();
          try {
            running = await build(apps);
            installed = apps;
          } catch (error) {
            failure = error;
            running = await build(installed);
          }
          return running;
        })();
        current = next;
        await next;
        if (failure !== undefined) throw failure;
      });
      queue = step.catch(() => {});
      return step;
    };
    return { url: server.url, server, ctx: () => running.ctx, reload };
  });
}
