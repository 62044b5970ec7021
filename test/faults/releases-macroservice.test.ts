import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../backend/config/load-config';
import type { PlatformConfig } from '../../backend/config/schema';
import type { Database } from '../../backend/db/database';
import { openDatabase } from '../../backend/db/open-database';
import { canaryBucket } from '../../backend/releases/assignment';
import { sha384Of } from '../../backend/releases/release-files';
import { ROOT_DIR } from '../../backend/roots/context';
import { createGateway, type Gateway } from '../../backend/roots/gateway';
import { type RunningService, startService } from '../../backend/roots/service';
import { MemoryKeyStore } from '../../backend/security/keys/memory-key-store';
import { REMOTES_PATH } from '../../src/protocol';
import { buildFiles, crmFingerprint } from '../backend/releases/support';
import { type NatsServerHandle, startNatsServer } from '../helpers/nats-server';
import { makeAppsFixture } from '../helpers/test-app';
import { type PostgresHandle, startPostgres } from './helpers/postgres-server';

const SECRET = 'releases-macro-test-secret-0123456789abcdef';
const PUBLIC_URL = 'http://desk.example';
const PASSWORD = 'releases-macro-password';
/** The manifests' heartbeat here: the bound within which a gateway that missed a notification catches up. */
const HEARTBEAT_SECONDS = 1;

let nats: NatsServerHandle;
let postgres: PostgresHandle;
const temp = mkdtempSync(join(tmpdir(), 'fault-releases-'));
const gateways: Gateway[] = [];
let service: RunningService | undefined;
let serviceDb: Database | undefined;
let adminToken = '';

function config(dataDir: string, extra: Record<string, unknown> = {}): PlatformConfig {
  return loadConfig({
    file: join(ROOT_DIR, 'platform.toml'),
    env: {},
    overrides: {
      mode: 'macroservice',
      'server.port': 0,
      'server.data_dir': dataDir,
      'security.payload_encryption.mode': 'disabled',
      'nats.url': nats.url,
      'nats.heartbeat_seconds': HEARTBEAT_SECONDS,
      'nats.ttl_seconds': 3 * HEARTBEAT_SECONDS,
      ...extra,
    },
  });
}

async function startCrm(): Promise<RunningService> {
  serviceDb ??= await openDatabase({ databaseUrl: postgres.url.replace(/\/desk$/, '/services') });
  return startService(config(join(temp, 'crm')), {
    app: 'crm',
    secret: SECRET,
    log: () => {},
    context: {
      database: serviceDb,
      appsDir: makeAppsFixture({ crm: false }),
      keys: await MemoryKeyStore.create({ graceMs: 86_400_000 }),
    },
  });
}

beforeAll(async () => {
  [nats, postgres] = await Promise.all([startNatsServer(), startPostgres()]);
  const env = { PLATFORM_ADMIN_PASSWORD: PASSWORD };
  // Two gateways behind one load balancer: release records in the one PostgreSQL they share.
  for (const name of ['a', 'b']) {
    const gatewayConfig = config(join(temp, name), {
      'server.public_url': PUBLIC_URL,
      'server.database_url': postgres.url,
    });
    gateways.push(await createGateway(gatewayConfig, { secret: SECRET, log: () => {}, env }));
  }
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  await admin.query('CREATE DATABASE services');
  await admin.end();
  service = await startCrm();
  adminToken = await gateways[0]!.ctx.security.auth.issueToken('Administrator', 600_000);
});

afterAll(async () => {
  await service?.close();
  for (const g of gateways) await g.close();
  await serviceDb?.close();
  await nats?.dispose();
  await postgres?.dispose();
  rmSync(temp, { recursive: true, force: true });
});

/** Polls `condition` until it holds; fails naming `what` after 60 s. */
async function until(what: string, condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function call(gateway: Gateway, method: string, path: string, token: string, body?: unknown) {
  return gateway.app.fetch(
    new Request(`${PUBLIC_URL}${path}`, {
      method,
      headers: {
        origin: PUBLIC_URL,
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

/** Publishes a build through `gateway` (publish, then upload); returns its version. */
async function publish(gateway: Gateway, label: string): Promise<string> {
  const entries = Object.entries(buildFiles(label)).map(([path, text]) => ({
    path,
    bytes: new TextEncoder().encode(text),
  }));
  const staged = await call(gateway, 'POST', '/api/releases/crm/publish', adminToken, {
    packageVersion: '1.0.0',
    files: entries.map((e) => ({ path: e.path, sha384: sha384Of(e.bytes), size: e.bytes.byteLength })),
    fingerprint: crmFingerprint(),
  });
  expect(staged.status, await staged.clone().text()).toBe(200);
  const { data } = (await staged.json()) as { data: { version: string } };
  const uploaded = await call(gateway, 'POST', '/api/releases/crm/upload', adminToken, {
    version: data.version,
    files: entries.map((e) => ({ path: e.path, data: Buffer.from(e.bytes).toString('base64') })),
  });
  expect(uploaded.status, await uploaded.clone().text()).toBe(200);
  return data.version;
}

async function act(gateway: Gateway, action: string, body: unknown): Promise<void> {
  const res = await call(gateway, 'POST', `/api/releases/crm/${action}`, adminToken, body);
  expect(res.status, await res.clone().text()).toBe(200);
}

/** The crm remote's URL in the remotes map `gateway` hands the bearer of `token`; null when absent. */
async function crmUrl(gateway: Gateway, token: string): Promise<string | null> {
  const res = await call(gateway, 'GET', REMOTES_PATH, token);
  if (res.status !== 200) return null;
  const remotes = (await res.json()) as Record<string, { url?: string } | undefined>;
  return remotes.crm?.url ?? null;
}

const entryOf = (version: string) => `${PUBLIC_URL}/desk/assets/crm/${version}/remoteEntry.js`;

/** Waits until every gateway hands the bearer of `token` `version`; prints when each one first did. */
async function everyGatewayOffers(version: string, token: string, since: number, what: string) {
  const reached: string[] = [];
  await Promise.all(
    gateways.map(async (g, i) => {
      await until(
        `gateway ${i} offers ${version}`,
        async () => (await crmUrl(g, token)) === entryOf(version),
      );
      reached.push(`gateway ${'ab'[i]} after ${Date.now() - since} ms`);
    }),
  );
  console.log(`${what}: ${reached.join(', ')}`);
}

describe('releases on MACROSERVICE gateways (PostgreSQL records, NATS notifications, files with the service)', () => {
  let first = '';
  let second = '';

  it('a promotion through one gateway reaches the other; a canary and a pin hand each user the same release on both', async () => {
    const [a, b] = gateways as [Gateway, Gateway];
    // A gateway takes releases of a service once it has its contract (asked when the service announces itself).
    await until('both gateways know crm', async () =>
      (await Promise.all(gateways.map((g) => call(g, 'GET', '/api/releases/crm', adminToken)))).every(
        (r) => r.status === 200,
      ),
    );
    first = await publish(a, 'first');
    await act(a, 'promote', { version: first });
    await everyGatewayOffers(first, adminToken, Date.now(), 'first promotion');

    second = await publish(b, 'second');
    const promotedAt = Date.now();
    await act(a, 'promote', { version: second });
    await everyGatewayOffers(second, adminToken, promotedAt, 'promotion to first and to all gateways');

    // The files are kept by the crm service, in its data directory, and reach browsers through any gateway.
    const stored = join(temp, 'crm', 'services', 'crm', 'releases', 'crm', second, 'remoteEntry.js');
    expect(readFileSync(stored, 'utf8')).toBe(buildFiles('second')['remoteEntry.js']);
    expect(existsSync(join(temp, 'a', 'releases')) || existsSync(join(temp, 'b', 'releases'))).toBe(false);
    for (const g of gateways) {
      const asset = await call(g, 'GET', `/desk/assets/crm/${first}/chunk.0123abcd.js`, adminToken);
      expect(asset.status).toBe(200);
      expect(await asset.text()).toBe(buildFiles('first')['chunk.0123abcd.js']);
      expect(asset.headers.get('cache-control')).toContain('immutable');
    }
    // The service keeps them for its gateways only: unsigned requests are refused, nothing is written.
    const direct = `${service!.url}/api/release-files/${encodeURIComponent(first)}/remoteEntry.js`;
    const sha = sha384Of(new TextEncoder().encode(buildFiles('first')['remoteEntry.js']!));
    const unsignedRead = await fetch(`${direct}?sha384=${encodeURIComponent(sha)}`);
    expect(unsignedRead.status).toBe(401);
    expect(((await unsignedRead.json()) as { error: { code: string } }).error.code).toBe('untrusted_caller');
    const unsignedWrite = await fetch(direct.replace('remoteEntry.js', 'extra.js'), {
      method: 'PUT',
      body: 'x',
    });
    expect(unsignedWrite.status).toBe(401);
    expect(existsSync(join(temp, 'crm', 'services', 'crm', 'releases', 'crm', first, 'extra.js'))).toBe(
      false,
    );
    expect((await fetch(`${service!.url}/api/release-contract`)).status).toBe(401);

    // A file changed on the service's disk after publication is refused there, on every read.
    const chunk = join(temp, 'crm', 'services', 'crm', 'releases', 'crm', first, 'chunk.0123abcd.js');
    chmodSync(chunk, 0o644);
    writeFileSync(chunk, '/* altered */\n');
    const altered = await call(b, 'GET', `/desk/assets/crm/${first}/chunk.0123abcd.js`, adminToken);
    expect(altered.status).toBe(500);
    expect(((await altered.json()) as { error: { code: string } }).error.code).toBe('release_altered');
    writeFileSync(chunk, buildFiles('first')['chunk.0123abcd.js']!);

    // The records are in the shared database: gateway b lists what gateway a promoted, and its history.
    const listed = await call(b, 'GET', '/api/releases/crm', adminToken);
    const { data } = (await listed.json()) as {
      data: {
        channel: { live: string };
        history: Array<{ action: string; version: string; previous: string }>;
      };
    };
    expect(data.channel.live).toBe(second);
    expect(data.history[0]).toMatchObject({ action: 'promote', version: second, previous: first });

    // 50% of the users get the first release back as a canary: each user gets the same one from both.
    const users = Array.from({ length: 20 }, (_, i) => `canary-user-${i}`);
    const tokens = new Map<string, string>();
    for (const user of users) {
      await a.ctx.security.auth.createUser(user, `${PASSWORD}-${user}`);
      tokens.set(user, await a.ctx.security.auth.issueToken(user, 600_000));
    }
    await act(b, 'canary', { version: first, percent: 50 });
    const expected = (user: string) => (canaryBucket('crm', user) < 50 ? first : second);
    expect(new Set(users.map(expected)).size).toBe(2);
    for (const user of users) {
      for (const [i, g] of gateways.entries()) {
        await until(`gateway ${i} hands ${user} its canary share`, async () => {
          return (await crmUrl(g, tokens.get(user)!)) === entryOf(expected(user));
        });
      }
    }

    // A pin overrides the canary for one user, on both gateways, and for nobody else.
    const pinned = users.find((u) => expected(u) === second)!;
    const other = users.find((u) => u !== pinned && expected(u) === second)!;
    await act(a, 'pin', { version: first, user: pinned });
    for (const g of gateways) {
      await until('the pin reaches every gateway', async () => {
        return (await crmUrl(g, tokens.get(pinned)!)) === entryOf(first);
      });
      expect(await crmUrl(g, tokens.get(other)!)).toBe(entryOf(second));
    }
    await act(a, 'canary', { version: null, percent: 0 });
    await act(a, 'pin', { version: null, user: pinned });
  });

  it('a NATS wipe loses no release and no pointer; a change made while NATS is down reaches every gateway', async () => {
    const [a] = gateways as [Gateway, Gateway];
    expect(second).not.toBe('');
    await nats.stop();
    rmSync(nats.storeDir, { recursive: true, force: true });
    // With NATS gone no notification can be sent: gateway b learns of this rollback at its next heartbeat.
    const rolledBackAt = Date.now();
    await act(a, 'rollback', {});
    await everyGatewayOffers(first, adminToken, rolledBackAt, 'rollback with NATS down (heartbeat only)');
    await nats.restart();
    // The services announce themselves again into the empty store; every release and pointer is still there.
    for (const g of gateways) {
      await until('the gateway lists crm again', async () => {
        const res = await call(g, 'GET', '/api/gateway/services', adminToken);
        return res.status === 200 && (await res.text()).includes('"crm"');
      });
      const listed = await call(g, 'GET', '/api/releases/crm', adminToken);
      const { data } = (await listed.json()) as {
        data: { channel: { live: string }; releases: Array<{ version: string; state: string }> };
      };
      expect(data.channel.live).toBe(first);
      expect(data.releases.map((r) => [r.version, r.state]).sort()).toEqual(
        [
          [first, 'published'],
          [second, 'published'],
        ].sort(),
      );
      expect(await crmUrl(g, adminToken)).toBe(entryOf(first));
    }
    // A promotion after the restart reaches every gateway too: notified, or at its next heartbeat while it
    // is still reconnecting (its directory keeps answering meanwhile).
    const promotedAt = Date.now();
    await act(a, 'promote', { version: second });
    await everyGatewayOffers(second, adminToken, promotedAt, 'promotion after the NATS wipe');
    const entry = await call(gateways[1]!, 'GET', `/desk/assets/crm/${second}/remoteEntry.js`, adminToken);
    expect(await entry.text()).toBe(buildFiles('second')['remoteEntry.js']);

    // The files are with the service: once it stops, its release files are not available, not missing.
    await service?.close();
    service = undefined;
    await until('the gateways drop crm', async () => {
      const res = await call(gateways[1]!, 'GET', '/api/gateway/services', adminToken);
      return !(await res.text()).includes('"crm"');
    });
    const gone = await call(gateways[1]!, 'GET', `/desk/assets/crm/${second}/remoteEntry.js`, adminToken);
    expect(gone.status).toBe(503);
    expect(((await gone.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
  });
});
