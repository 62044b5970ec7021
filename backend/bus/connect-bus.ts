import type { PlatformConfig } from '../config/schema';
import type { Logger } from '../context';
import { PlatformError } from '../http/errors';
import type { Bus } from './bus';
import { NatsBus } from './nats-bus';

/**
 * Connects a MACROSERVICE process to NATS (`nats.url` / `PLATFORM_NATS_URL`), retrying with backoff while
 * the server is unavailable (see {@link NatsBus.connect}); a missing URL is a `config_invalid` error.
 */
export async function connectBus(
  config: PlatformConfig,
  log: Logger,
  name: string,
  signal?: AbortSignal,
): Promise<Bus> {
  const url = config.nats.url;
  if (!url) {
    throw new PlatformError(
      'config_invalid',
      'tool.platform.nats.url (PLATFORM_NATS_URL) is required in MACROSERVICE mode, e.g. nats://127.0.0.1:4222',
    );
  }
  return NatsBus.connect({ url, log, name, signal });
}

/** Bucket TTL and heartbeat from `[tool.platform.nats]`, checked so a heartbeat always lands inside the TTL. */
export function manifestTiming(config: PlatformConfig): { ttlMs: number; heartbeatMs: number } {
  const { ttl_seconds: ttl, heartbeat_seconds: heartbeat } = config.nats;
  if (heartbeat * 2 > ttl) {
    throw new PlatformError(
      'config_invalid',
      `tool.platform.nats.heartbeat_seconds (${heartbeat}) must be at most half of ttl_seconds (${ttl}), so one lost heartbeat does not expire a live service`,
    );
  }
  return { ttlMs: ttl * 1000, heartbeatMs: heartbeat * 1000 };
}
