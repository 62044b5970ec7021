/**
 * Building blocks for MACROSERVICE tests that run a gateway and services in this process, against a real
 * nats-server, each on an in-memory database with an in-memory key ring.
 */
import { join } from 'node:path';
import { loadConfig } from '../../backend/config/load-config';
import type { PlatformConfig } from '../../backend/config/schema';
import type { Database } from '../../backend/db/database';
import { openDatabase } from '../../backend/db/open-database';
import { ROOT_DIR } from '../../backend/roots/context';
import { createGateway, type Gateway } from '../../backend/roots/gateway';
import { type RunningService, startService } from '../../backend/roots/service';
import { MemoryKeyStore } from '../../backend/security/keys/memory-key-store';

/** The public URL the test gateways answer on (requests go to `app.fetch`, no socket). */
export const GATEWAY_URL = 'http://gateway.test';

/**
 * The gateway's configuration for a test deployment: short heartbeats and manifest TTL so arrivals and
 * departures show within seconds, payload encryption off unless `overrides` turns it on.
 */
export function macroserviceConfig(
  natsUrl: string,
  dataDir: string,
  overrides: Record<string, unknown> = {},
): PlatformConfig {
  return loadConfig({
    file: join(ROOT_DIR, 'platform.toml'),
    env: {},
    overrides: {
      mode: 'macroservice',
      'server.port': 0,
      'server.data_dir': dataDir,
      'server.public_url': GATEWAY_URL,
      'security.payload_encryption.mode': 'disabled',
      'nats.url': natsUrl,
      'nats.ttl_seconds': 3,
      'nats.heartbeat_seconds': 1,
      ...overrides,
    },
  });
}

/** A service's configuration: the gateway's, without its public URL (a service publishes its own address). */
export function serviceConfigOf(config: PlatformConfig): PlatformConfig {
  return { ...config, server: { ...config.server, public_url: undefined } };
}

/** An in-memory key ring with the configured grace period. */
export function memoryKeys(config: PlatformConfig): Promise<MemoryKeyStore> {
  return MemoryKeyStore.create({ graceMs: config.security.payload_encryption.key_grace_seconds * 1000 });
}

/** Starts a gateway on `database` (a new in-memory one when not given). */
export async function startMemoryGateway(
  config: PlatformConfig,
  secret: string,
  database?: Database,
): Promise<{ gateway: Gateway; database: Database }> {
  const db = database ?? (await openDatabase({ memory: true }));
  const gateway = await createGateway(config, {
    secret,
    log: () => {},
    context: { database: db, keys: await memoryKeys(config) },
  });
  return { gateway, database: db };
}

/** Starts the service of `app` (from `appsDir`) on a new in-memory database. */
export async function startMemoryService(
  config: PlatformConfig,
  app: string,
  appsDir: string,
  secret: string,
): Promise<{ service: RunningService; database: Database }> {
  const database = await openDatabase({ memory: true });
  const service = await startService(config, {
    app,
    secret,
    log: () => {},
    context: { database, appsDir, keys: await memoryKeys(config) },
  });
  return { service, database };
}

/** Sends a request to a gateway's app with a credential, JSON-encoding `body` when given. */
export function gatewayRequest(
  gateway: Gateway,
  authorization: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return Promise.resolve(
    gateway.app.fetch(
      new Request(`${GATEWAY_URL}${path}`, {
        method,
        headers: {
          authorization,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    ),
  );
}
