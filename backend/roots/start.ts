import type { PlatformConfig } from '../config/schema';
import type { Logger } from '../context';
import { type CleanupStack, createCleanupStack } from '../lifecycle/cleanup-stack';
import { type FetchApp, type ListeningServer, listen } from '../server';
import { boundPublicUrl } from './context';

/**
 * Runs `build` on a fresh cleanup stack and hands back what it built with the stack's `close`. A build that
 * throws releases what it had opened so far before the error reaches the caller, so a failed start leaks
 * nothing.
 */
export async function onCleanupStack<T extends object>(
  log: Logger | undefined,
  build: (stack: CleanupStack) => Promise<T>,
): Promise<Omit<T, 'close'> & { close(): Promise<void> }> {
  const stack = createCleanupStack(log ?? ((line) => console.error(line)));
  try {
    return { ...(await build(stack)), close: () => stack.close() };
  } catch (err) {
    await stack.close();
    throw err;
  }
}

/** Binds `server.host` / `server.port` (0 = a free port); the server is closed with `stack`. */
export async function bindServer(config: PlatformConfig, stack: CleanupStack): Promise<ListeningServer> {
  const server = await listen({
    host: config.server.host,
    port: config.server.port,
    shutdownTimeoutMs: config.server.shutdown_timeout_ms,
    bodyIdleTimeoutMs: config.server.body_idle_timeout_ms,
  });
  stack.defer(() => server.close());
  return server;
}

/**
 * The start of a listening root: binds first, so that without `server.public_url` the public URL handed to
 * `build` (and so every manifest URL) carries the port actually bound, then builds the app on the same stack
 * and serves it. Closing stops the server first, then releases what `build` opened.
 */
export function bindThenServe<T extends { app: FetchApp }>(
  config: PlatformConfig,
  log: Logger | undefined,
  build: (boundUrl: string, stack: CleanupStack) => Promise<T>,
): Promise<Omit<T, 'close'> & { url: string; server: ListeningServer; close(): Promise<void> }> {
  return onCleanupStack(log, async (stack) => {
    const server = await bindServer(config, stack);
    const built = await build(boundPublicUrl(config, server.port), stack);
    server.serve(built.app);
    // Once serving, stopping the server comes first on close: in-flight requests still need the context.
    stack.defer(() => server.close());
    return { ...built, url: server.url, server };
  });
}
