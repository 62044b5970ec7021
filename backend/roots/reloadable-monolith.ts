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
   * or RPC method declared twice, a bad name), then closes the running context and builds one for `apps`,
   * which migrates the database for their DocTypes as a start does. Requests arriving meanwhile wait for
   * the new one. When the new apps cannot start, the previous ones are started again and the error is
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
    server.serve({ fetch: async (request, env) => (await current).app.fetch(request, env) });
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
