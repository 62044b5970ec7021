import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importJWK } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../backend/config/load-config';
import type { PlatformConfig } from '../../backend/config/schema';
import type { Database } from '../../backend/db/database';
import { openDatabase } from '../../backend/db/open-database';
import { ROOT_DIR } from '../../backend/roots/context';
import { createGateway, type Gateway } from '../../backend/roots/gateway';
import { type RunningService, startService } from '../../backend/roots/service';
import { MemoryKeyStore } from '../../backend/security/keys/memory-key-store';
import { JOSE_CONTENT_TYPE } from '../../src/protocol';
import { encryptJwe } from '../../src/sdk/security/encrypt-payload';
import { type NatsServerHandle, startNatsServer } from '../helpers/nats-server';
import { makeAppsFixture } from '../helpers/test-app';
import { type PostgresHandle, startPostgres } from './helpers/postgres-server';
import { spawnM } from './helpers/serve-process';

const SECRET = 'n-gateways-test-secret-0123456789abcdef';
const KEK = 'n-gateways-key-encryption-key-0123456789abcdef';
const PUBLIC_URL = 'http://desk.example';
const PASSWORD = 'n-gateways-password';

let nats: NatsServerHandle;
let postgres: PostgresHandle;
const temp = mkdtempSync(join(tmpdir(), 'fault-ngw-'));
const gateways: Gateway[] = [];
const services: RunningService[] = [];
const databases: Database[] = [];

beforeAll(async () => {
  [nats, postgres] = await Promise.all([startNatsServer(), startPostgres()]);
  const env = { PLATFORM_KEY_ENCRYPTION_KEY: KEK, PLATFORM_ADMIN_PASSWORD: PASSWORD };
  const base = (dataDir: string, extra: Record<string, unknown> = {}): PlatformConfig =>
    loadConfig({
      file: join(ROOT_DIR, 'platform.toml'),
      env: {},
      overrides: {
        mode: 'macroservice',
        'server.port': 0,
        'server.data_dir': dataDir,
        'security.payload_encryption.mode': 'strict',
        'nats.url': nats.url,
        ...extra,
      },
    });
  // Two gateways behind one load balancer: one public URL, users and sessions in one PostgreSQL, one key ring
  // in NATS KV (each given only the key-encryption key), each with a data directory of its own.
  for (const name of ['a', 'b']) {
    const config = base(join(temp, name), {
      'server.public_url': PUBLIC_URL,
      'server.database_url': postgres.url,
    });
    const previous = process.env.PLATFORM_ADMIN_PASSWORD;
    process.env.PLATFORM_ADMIN_PASSWORD = PASSWORD;
    try {
      gateways.push(await createGateway(config, { secret: SECRET, log: () => {}, env }));
    } finally {
      if (previous === undefined) delete process.env.PLATFORM_ADMIN_PASSWORD;
      else process.env.PLATFORM_ADMIN_PASSWORD = previous;
    }
  }
  // The services' records in a database of their own on the same PostgreSQL server (one per service in a
  // real deployment; shared here, each service creating only its own app's tables).
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  await admin.query('CREATE DATABASE services');
  await admin.end();
  const servicesUrl = postgres.url.replace(/\/desk$/, '/services');
  const appsDir = makeAppsFixture({ crm: false, stock: false });
  for (const app of ['crm', 'stock']) {
    const database = await openDatabase({ databaseUrl: servicesUrl });
    databases.push(database);
    services.push(
      await startService(base(join(temp, app)), {
        app,
        secret: SECRET,
        log: () => {},
        context: { database, appsDir, keys: await MemoryKeyStore.create({ graceMs: 86_400_000 }) },
      }),
    );
  }
});

afterAll(async () => {
  for (const s of services) await s.close();
  for (const g of gateways) await g.close();
  for (const db of databases) await db.close();
  await nats?.dispose();
  await postgres?.dispose();
  rmSync(temp, { recursive: true, force: true });
});

/** Polls `condition` until it holds; fails naming `what` after 90 s (a fresh clone starts slowly). */
async function until(what: string, condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Session {
  cookie: string;
  csrf: string;
}

function call(
  gateway: Gateway,
  method: string,
  path: string,
  init: { body?: string; headers?: Record<string, string> } = {},
) {
  return gateway.app.fetch(
    new Request(`${PUBLIC_URL}${path}`, {
      method,
      headers: { origin: PUBLIC_URL, ...init.headers },
      body: init.body,
    }),
  );
}

/** A browser-like client: one JWKS fetched once (and again on `unknown_key`), encrypting every create. */
class Client {
  #key?: { kid: string; key: CryptoKey };
  constructor(readonly session: Session) {}

  async jwks(gateway: Gateway) {
    const res = await call(gateway, 'GET', '/api/v1/security/jwks');
    const { keys } = (await res.json()) as {
      keys: Array<{ kid: string; n: string; e: string; kty: string }>;
    };
    const jwk = keys[0]!;
    this.#key = {
      kid: jwk.kid,
      key: (await importJWK({ ...jwk, alg: 'RSA-OAEP-256' }, 'RSA-OAEP-256')) as CryptoKey,
    };
    return jwk.kid;
  }

  async encrypt(path: string, body: unknown): Promise<string> {
    const { kid, key } = this.#key!;
    return encryptJwe(JSON.stringify(body), key, kid, { htm: 'POST', htu: path });
  }

  async create(gateway: Gateway, path: string, body: unknown): Promise<Response> {
    return this.send(gateway, path, await this.encrypt(path, body));
  }

  async send(gateway: Gateway, path: string, jwe: string): Promise<Response> {
    return call(gateway, 'POST', path, {
      body: jwe,
      headers: {
        'content-type': JOSE_CONTENT_TYPE,
        cookie: this.session.cookie,
        'x-csrf-token': this.session.csrf,
      },
    });
  }
}

describe('several gateways behind a load balancer (MACROSERVICE, PostgreSQL, NATS)', () => {
  it('signs in on one gateway, creates encrypted records on the other, rotates keys mid-run, with 0 failures', async () => {
    const [a, b] = gateways as [Gateway, Gateway];
    const loginJwks = new Client({ cookie: '', csrf: '' });
    await loginJwks.jwks(b);
    // Strict mode encrypts the sign-in too: made from b's JWKS, sent to a.
    const login = await loginJwks.create(a, '/api/method/login', { usr: 'Administrator', pwd: PASSWORD });
    expect(login.status).toBe(200);
    const { csrf_token } = (await login.json()) as { csrf_token: string };
    const client = new Client({ cookie: login.headers.get('set-cookie')!.split(';')[0]!, csrf: csrf_token });
    const firstKid = await client.jwks(a);

    // Both gateways route to both services: the service listing, not the remotes map, which leaves out
    // services whose UI remote is not built (a fresh clone).
    await until('both gateways list crm and stock', async () => {
      const both = await Promise.all(
        [a, b].map(async (g) => (await call(g, 'GET', '/api/gateway/services')).text()),
      );
      return both.every((t) => t.includes('"crm"') && t.includes('"stock"'));
    });

    const failures: string[] = [];
    let created = 0;
    let rotatedKid = '';
    for (let i = 0; i < 24; i++) {
      const gateway = i % 2 === 0 ? b : a;
      if (i === 8) {
        // Mid-run, the operator rotates the shared ring from the command line.
        const rotate = spawnM(['keys', 'rotate', '--data-dir', join(temp, 'cli')], {
          PLATFORM_MODE: 'macroservice',
          PLATFORM_NATS_URL: nats.url,
          PLATFORM_KEY_ENCRYPTION_KEY: KEK,
        });
        expect(await rotate.exited, rotate.output()).toBe(0);
        rotatedKid = /new active key (\S+) in the shared key ring/.exec(rotate.output())?.[1] ?? '';
        expect(rotatedKid, rotate.output()).not.toBe('');
        expect(rotatedKid).not.toBe(firstKid);
      }
      // A client refreshing its JWKS later gets the new key from a (the write reaches a through its watch of
      // the ring, asynchronously), and sends it to b next.
      if (i === 16) await until('a publishes the new key', async () => (await client.jwks(a)) === rotatedKid);
      const [path, body] =
        i % 3 === 0
          ? ['/api/resource/stock.Item', { item_code: `ITEM-${i}`, item_name: `Item ${i}` }]
          : ['/api/resource/crm.Lead', { lead_name: `Lead ${i}`, source: 'Website' }];
      const res = await client.create(gateway, path, body);
      if (res.status === 201) created++;
      else failures.push(`${i} ${path} -> ${res.status} ${await res.text()}`);
    }
    expect(failures).toEqual([]);
    expect(created).toBe(24);
    // Both gateways publish the new key first and the retired one, still decrypting, after it.
    for (const gateway of [a, b]) {
      const jwks = (await (await call(gateway, 'GET', '/api/v1/security/jwks')).json()) as {
        keys: { kid: string }[];
      };
      expect(jwks.keys.map((k) => k.kid)).toEqual([rotatedKid, firstKid]);
    }

    // A captured JWE replayed to either gateway is refused.
    const path = '/api/resource/crm.Lead';
    const captured = await client.encrypt(path, { lead_name: 'Captured', source: 'Website' });
    expect((await client.send(a, path, captured)).status).toBe(201);
    for (const gateway of [a, b]) {
      const replay = await client.send(gateway, path, captured);
      expect(replay.status).toBe(400);
      expect(((await replay.json()) as { error: { code: string } }).error.code).toBe('replayed');
    }
  }, 240_000);
});
