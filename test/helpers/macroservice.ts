/**
 * Building blocks for MACROSERVICE tests that run a gateway and services in this process, against a real
 * nats-server, each on an in-memory database with an in-memory key ring.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../backend/config/load-config';
import type { PlatformConfig } from '../../backend/config/schema';
import type { Database } from '../../backend/db/database';
import { openDatabase } from '../../backend/db/open-database';
import { ROOT_DIR } from '../../backend/roots/context';
import { createGateway, type Gateway } from '../../backend/roots/gateway';
import { type RunningService, startService } from '../../backend/roots/service';
import { MemoryKeyStore } from '../../backend/security/keys/memory-key-store';
import { apiKeyAuthorization } from './auth';
import { type NatsServerHandle, startNatsServer } from './nats-server';
import { makeAppsFixture } from './test-app';

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

/** Starts the service of `app` (from `appsDir`) on a new in-memory database and an in-memory key ring. */
export async function startMemoryService(
  config: PlatformConfig,
  app: string,
  appsDir: string,
  secret: string,
): Promise<{ service: RunningService; database: Database; keys: MemoryKeyStore }> {
  const database = await openDatabase({ memory: true });
  const keys = await memoryKeys(config);
  const service = await startService(config, {
    app,
    secret,
    log: () => {},
    context: { database, appsDir, keys },
  });
  return { service, database, keys };
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

/** What {@link MacroserviceDeployment.start} started. */
export interface StartedDeployment {
  /** The gateway's configuration (the services run with {@link serviceConfigOf} of it). */
  config: PlatformConfig;
  gateway: Gateway;
  gatewayDatabase: Database;
  /** Administrator's API-key `Authorization` header at the gateway. */
  admin: string;
  services: Record<string, RunningService>;
  serviceDatabases: Record<string, Database>;
  /** Each service's own key ring (its kids as published: `svc:<app>:<kid>`). */
  serviceKeys: Record<string, MemoryKeyStore>;
}

/**
 * A whole MACROSERVICE deployment for one test file: a nats-server, a gateway and one service per app (apps
 * folders without a UI remote), each on its own in-memory database. `close` releases whatever was started,
 * also after a start that failed part-way, so a file's `afterAll` can always call it.
 */
export class MacroserviceDeployment {
  readonly #secret: string;
  #nats?: NatsServerHandle;
  readonly #dirs: string[] = [];
  #gateway?: Gateway;
  readonly #services: RunningService[] = [];
  readonly #databases: Database[] = [];

  /** `secret` is the internal secret the gateway signs with and the services check. */
  constructor(secret: string) {
    this.#secret = secret;
  }

  /**
   * Starts nats-server, the gateway (configured by {@link macroserviceConfig} with `overrides`, its data under
   * a new temporary folder named after `tmpPrefix`), then the service of each of `apps` in order.
   */
  async start(options: {
    apps: string[];
    tmpPrefix: string;
    overrides?: Record<string, unknown>;
  }): Promise<StartedDeployment> {
    const nats = await startNatsServer();
    this.#nats = nats;
    const appsDir = makeAppsFixture(Object.fromEntries(options.apps.map((app) => [app, false])));
    this.#dirs.push(appsDir);
    const dataDir = mkdtempSync(join(tmpdir(), options.tmpPrefix));
    this.#dirs.push(dataDir);
    const config = macroserviceConfig(nats.url, dataDir, options.overrides);
    const { gateway, database: gatewayDatabase } = await startMemoryGateway(config, this.#secret);
    this.#databases.push(gatewayDatabase);
    this.#gateway = gateway;
    const admin = await apiKeyAuthorization(gateway.ctx);
    const services: Record<string, RunningService> = {};
    const serviceDatabases: Record<string, Database> = {};
    const serviceKeys: Record<string, MemoryKeyStore> = {};
    for (const app of options.apps) {
      const started = await startMemoryService(serviceConfigOf(config), app, appsDir, this.#secret);
      this.#databases.push(started.database);
      this.#services.push(started.service);
      services[app] = started.service;
      serviceDatabases[app] = started.database;
      serviceKeys[app] = started.keys;
    }
    return { config, gateway, gatewayDatabase, admin, services, serviceDatabases, serviceKeys };
  }

  /** Stops the services, then the gateway, closes the databases, stops nats-server and removes the folders. */
  async close(): Promise<void> {
    for (const service of this.#services) await service.close();
    await this.#gateway?.close();
    for (const database of this.#databases) await database.close();
    await this.#nats?.dispose();
    for (const dir of this.#dirs) rmSync(dir, { recursive: true, force: true });
  }
}
