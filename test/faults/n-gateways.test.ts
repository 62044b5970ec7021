import { createPrivateKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
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
import {
  KEY_RING_BUCKET,
  KEY_RING_KEY,
  type KvKeyStore,
  type SharedKeyRing,
} from '../../backend/security/keys/kv-key-store';
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
  // Gateway a is given the key-encryption key in its environment, b in a file (a secret mount).
  const kekFile = join(temp, 'kek');
  writeFileSync(kekFile, `${KEK}\n`, { mode: 0o600 });
  const envOf: Record<string, Record<string, string>> = {
    a: { PLATFORM_KEY_ENCRYPTION_KEY: KEK, PLATFORM_ADMIN_PASSWORD: PASSWORD },
    b: { PLATFORM_KEY_ENCRYPTION_KEY_FILE: kekFile, PLATFORM_ADMIN_PASSWORD: PASSWORD },
  };
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
      gateways.push(await createGateway(config, { secret: SECRET, log: () => {}, env: envOf[name] }));
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

/** The kids a gateway publishes, newest first, and the max-age its JWKS may be cached for. */
async function jwksOf(gateway: Gateway): Promise<{ kids: string[]; maxAgeSeconds: number }> {
  const res = await call(gateway, 'GET', '/api/v1/security/jwks');
  const maxAge = /max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '')?.[1];
  const { keys } = (await res.json()) as { keys: { kid: string }[] };
  return { kids: keys.map((k) => k.kid), maxAgeSeconds: Number(maxAge) };
}

/**
 * Fails unless every gateway publishes `kid` as its active key before a JWKS fetched when the rotation was
 * made expires (the max-age the JWKS itself states): a client refetching then finds it on any gateway.
 */
async function everyGatewayPublishesWithinMaxAge(kid: string): Promise<void> {
  const deadline = Date.now() + (await jwksOf(gateways[0]!)).maxAgeSeconds * 1000;
  for (const gateway of gateways) {
    while ((await jwksOf(gateway)).kids[0] !== kid) {
      if (Date.now() > deadline) throw new Error(`a gateway did not publish ${kid} within the JWKS max-age`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** The shared ring as stored in NATS KV, read with a client of its own. */
async function storedRing(): Promise<SharedKeyRing> {
  const nc = await connect({ servers: nats.url });
  try {
    const kv = await new Kvm(nc).open(KEY_RING_BUCKET);
    return (await kv.get(KEY_RING_KEY))!.json<SharedKeyRing>();
  } finally {
    await nc.close();
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
    let cliKid = '';
    let gatewayKid = '';
    for (let i = 0; i < 24; i++) {
      const gateway = i % 2 === 0 ? b : a;
      if (i === 6) {
        // Mid-run, the operator rotates the shared ring from the command line.
        const rotate = spawnM(['keys', 'rotate', '--data-dir', join(temp, 'cli')], {
          PLATFORM_MODE: 'macroservice',
          PLATFORM_NATS_URL: nats.url,
          PLATFORM_KEY_ENCRYPTION_KEY: KEK,
        });
        expect(await rotate.exited, rotate.output()).toBe(0);
        cliKid = /new active key (\S+) in the shared key ring/.exec(rotate.output())?.[1] ?? '';
        expect(cliKid, rotate.output()).not.toBe('');
        expect(cliKid).not.toBe(firstKid);
        await everyGatewayPublishesWithinMaxAge(cliKid);
      }
      // The client keeps its old JWKS a while (the retired key still decrypts), then refetches it from a and
      // sends what it encrypts to b next.
      if (i === 10) expect(await client.jwks(a)).toBe(cliKid);
      if (i === 14) {
        // Then a gateway rotates the ring itself (as the first gateway after NATS lost its store does).
        gatewayKid = await (b.ctx.security.keys as KvKeyStore).rotate();
        await everyGatewayPublishesWithinMaxAge(gatewayKid);
      }
      if (i === 18) expect(await client.jwks(b)).toBe(gatewayKid);
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
    // Both gateways publish the newest key first and the retired ones, still decrypting, after it; then the
    // services' own keys (docs/security.md#encrypted-to-the-owning-service).
    for (const gateway of [a, b]) {
      const { kids } = await jwksOf(gateway);
      expect(kids.slice(0, 3)).toEqual([gatewayKid, cliKid, firstKid]);
      expect(kids.slice(3).sort()).toEqual([
        expect.stringMatching(/^svc:crm:/),
        expect.stringMatching(/^svc:stock:/),
      ]);
    }
    // The ring in NATS KV holds every private key wrapped with the key-encryption key, none in clear.
    const ring = await storedRing();
    expect(ring.keys.map((k) => k.kid)).toEqual([gatewayKid, cliKid, firstKid]);
    for (const k of ring.keys) {
      expect(() =>
        createPrivateKey({ key: Buffer.from(k.wrapped, 'base64url'), format: 'der', type: 'pkcs8' }),
      ).toThrow();
      expect(k.wrapped).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    }
    expect(JSON.stringify(ring)).not.toContain('PRIVATE KEY');

    // A captured JWE replayed to either gateway is refused.
    const path = '/api/resource/crm.Lead';
    const captured = await client.encrypt(path, { lead_name: 'Captured', source: 'Website' });
    expect((await client.send(a, path, captured)).status).toBe(201);
    for (const gateway of [a, b]) {
      const replay = await client.send(gateway, path, captured);
      expect(replay.status).toBe(400);
      expect(((await replay.json()) as { error: { code: string } }).error.code).toBe('replayed');
    }

    // Users and sessions live in the shared PostgreSQL: a user added through a signs in on b, b's session
    // is accepted by a, and b lists the user.
    const added = await client.create(a, '/api/method/platform.users.add', {
      name: 'clerk@example.com',
      password: 'clerk-password-1',
      roles: ['Sales User'],
    });
    expect(added.status, await added.clone().text()).toBe(200);
    const clerkLogin = await client.create(b, '/api/method/login', {
      usr: 'clerk@example.com',
      pwd: 'clerk-password-1',
    });
    expect(clerkLogin.status).toBe(200);
    const clerkCookie = clerkLogin.headers.get('set-cookie')!.split(';')[0]!;
    const whoami = await call(a, 'GET', '/api/method/platform.auth.whoami', {
      headers: { cookie: clerkCookie },
    });
    expect(whoami.status).toBe(200);
    expect(((await whoami.json()) as { message: { user: string } }).message.user).toBe('clerk@example.com');
    const listed = await client.create(b, '/api/method/platform.users.list', {});
    expect(listed.status).toBe(200);
    expect(JSON.stringify(await listed.json())).toContain('clerk@example.com');
  }, 240_000);
});
