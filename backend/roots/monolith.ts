import type { Hono } from 'hono';
import { createApp } from '../app';
import type { PlatformConfig } from '../config/schema';
import type { AppContext } from '../context';
import type { ServiceDirectory } from '../gateway/service-directory';
import type { AppEnv } from '../http/env';
import type { RunningServer } from '../server';
import { buildContext, type ContextOptions, inProcessBus, refuseDefaultAdminPassword } from './context';
import { bindThenServe, onCleanupStack } from './start';

/** Options of {@link createMonolith} and {@link startMonolith}. */
export interface MonolithOptions extends ContextOptions {
  /** A directory naming other services (tests: a static one); default the scan of the installed apps. */
  directory?: ServiceDirectory;
}

/** A MONOLITH app and the context it was built from. */
export interface Monolith {
  app: Hono<AppEnv>;
  ctx: AppContext;
  /** Releases everything the root opened, in reverse order. Idempotent. */
  close(): Promise<void>;
}

/**
 * The MONOLITH composition root without a listener: every installed app in one process, an in-process bus,
 * the database store for idempotency records, the directory scanned from the installed apps (or the given
 * one). Tests and MSW-free benchmarks call it directly; `m serve` goes through {@link startMonolith}.
 */
export async function createMonolith(
  config: PlatformConfig,
  options: MonolithOptions = {},
): Promise<Monolith> {
  return onCleanupStack(options.log, async (stack) => {
    const given = options.directory;
    const ctx = await buildContext(
      config,
      options,
      { bus: inProcessBus(stack), directory: given && (() => given) },
      stack,
    );
    await refuseDefaultAdminPassword(ctx);
    return { app: createApp(ctx), ctx };
  });
}

/** A listening MONOLITH. */
export interface RunningMonolith extends Monolith {
  /** The address bound (`http://host:port`). */
  url: string;
  server: RunningServer;
}

/**
 * `m serve` in MONOLITH mode: binds `server.host` / `server.port` first, so that without `server.public_url`
 * the context's public URL (and so every manifest URL) carries the port actually bound, then builds the
 * monolith and serves it. Closing stops the server first, then releases the context.
 */
export async function startMonolith(
  config: PlatformConfig,
  options: MonolithOptions = {},
): Promise<RunningMonolith> {
  return bindThenServe(config, options.log, async (boundUrl, stack) => {
    const monolith = await createMonolith(config, { ...options, publicUrl: options.publicUrl ?? boundUrl });
    stack.defer(() => monolith.close());
    return monolith;
  });
}
