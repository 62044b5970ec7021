/**
 * A MACROSERVICE gateway never holds the personal data a browser encrypts to the owning service
 * (docs/security.md#encrypted-to-the-owning-service). A real nats-server, the gateway and the crm service as
 * `m serve` child processes on 127.0.0.1; the test is the browser: the SDK signs in as a Sales User (who
 * may create customers but not read their personal data) and creates a Customer with an email through the
 * data provider, which encrypts the body to crm's own key. Then the gateway's whole output (at debug level)
 * is searched for the email, and so is a heap snapshot of the gateway process (`--heapsnapshot-signal`)
 * taken while it holds the request: absent. The same search finds an email in a snapshot taken while the
 * gateway holds a create encrypted to its own key, so the search works.
 */
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInternalRequest } from '../../backend/auth/internal-auth';
import { CSRF_HEADER, PII_MASK } from '../../src/protocol';
import { frameworkMDataProvider } from '../../src/sdk/data';
import { fetchServiceMetadata } from '../../src/sdk/data/service-metadata';
import { DiscoveryClient } from '../../src/sdk/discovery';
import { createCsrfTokenStore, createHttpClient } from '../../src/sdk/http';
import { SecurityClient } from '../../src/sdk/security';
import { type NatsServerHandle, startNatsServer, waitUntil } from '../helpers/nats-server';
import { fileContains, heapSnapshot, whileHeldAt } from './helpers/leak-search';
import { signIn, spawnM, type WatchedProcess, waitForOutput } from './helpers/serve-process';

const SECRET = 'owner-keys-heap-test-secret-0123456789abcdef';
const EMAIL = 'ada.sealed-4f7c@example.com';
const CONTROL_EMAIL = 'ada.opened-9d2e@example.com';
const SALES_PASSWORD = 'sales-user-password-0123';

let nats: NatsServerHandle;
const dir = mkdtempSync(join(tmpdir(), 'fault-owner-keys-'));
const snapshots = { gateway: join(dir, 'snapshots-gateway'), crm: join(dir, 'snapshots-crm') };
let gateway: WatchedProcess;
let crm: WatchedProcess;
let gatewayUrl: string;
let crmUrl: string;

/** `m serve --mode macroservice [--app <app>]`, writing a heap snapshot to `snapshotDir` on SIGUSR2. */
function serve(
  configFile: string,
  snapshotDir: string,
  app?: string,
  env: Record<string, string> = {},
): WatchedProcess {
  mkdirSync(snapshotDir, { recursive: true });
  return spawnM(['serve', '--config', configFile, '--mode', 'macroservice', ...(app ? ['--app', app] : [])], {
    PLATFORM_INTERNAL_SECRET: SECRET,
    PLATFORM_NATS_URL: nats.url,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshotDir}`,
    ...env,
  });
}

/** The SDK as a browser on the gateway's page: cookies kept, Origin sent. */
function browser() {
  const jar = new Map<string, string>();
  const sent: Array<{ method: string; path: string; contentType: string | null; body: string }> = [];
  const fetchLike: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const headers = new Headers(request.headers);
    headers.set('Origin', gatewayUrl);
    if (jar.size > 0 && request.credentials !== 'omit')
      headers.set('Cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text();
    sent.push({
      method: request.method,
      path: new URL(request.url).pathname,
      contentType: headers.get('content-type'),
      body: body ?? '',
    });
    const response = await fetch(request.url, { method: request.method, headers, body });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, value] = pair!.split('=');
      if (name) jar.set(name.trim(), value ?? '');
    }
    return response;
  };
  const security = new SecurityClient({ baseUrl: gatewayUrl, fetch: fetchLike });
  const http = createHttpClient({
    baseUrl: gatewayUrl,
    security,
    fetch: fetchLike,
    csrf: createCsrfTokenStore(undefined),
  });
  const discovery = new DiscoveryClient({ gatewayUrl, fetch: fetchLike });
  return { sent, fetch: fetchLike, http, discovery, provider: frameworkMDataProvider({ discovery, http }) };
}

beforeAll(async () => {
  nats = await startNatsServer();
  const configFile = join(dir, 'platform.toml');
  writeFileSync(
    configFile,
    [
      '[tool.platform]',
      'mode = "macroservice"',
      '[tool.platform.server]',
      'port = 0',
      'host = "127.0.0.1"',
      `data_dir = ${JSON.stringify(join(dir, 'data'))}`,
      '[tool.platform.security.payload_encryption]',
      'mode = "metadata"',
      '[tool.platform.nats]',
      'ttl_seconds = 3',
      'heartbeat_seconds = 1',
      // The gateway waits for crm while the test holds crm stopped and snapshots the gateway's heap.
      '[tool.platform.desk]',
      'upstream_timeout_ms = 300000',
      '',
    ].join('\n'),
  );
  // The gateway logs at its most verbose: a line for every request it forwards.
  gateway = serve(configFile, snapshots.gateway, undefined, { PLATFORM_LOG_LEVEL: 'debug' });
  crm = serve(configFile, snapshots.crm, 'crm');
  gatewayUrl = (await waitForOutput(gateway, /gateway\) on (http:\/\/\S+)\/desk\//))[1]!;
  crmUrl = (await waitForOutput(crm, /Service crm on (http:\/\/\S+) /))[1]!;
  await waitUntil(
    async () => {
      const res = await fetch(`${gatewayUrl}/api/v1/security/jwks`);
      const { keys } = (await res.json()) as { keys: Array<{ kid: string }> };
      return keys.some((k) => k.kid.startsWith('svc:crm:'));
    },
    60_000,
    "the gateway's JWKS lists crm's key",
  );
  // A Sales User: creates customers, never reads their personal data (docs/permissions.md).
  const admin = await signIn(gatewayUrl);
  const added = await fetch(`${gatewayUrl}/api/method/platform.users.add`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'sales.heap', password: SALES_PASSWORD, roles: ['Sales User'] }),
  });
  expect(added.status).toBe(200);
}, 300_000);

afterAll(async () => {
  for (const proc of [crm, gateway]) {
    if (!proc || proc.child.exitCode !== null || proc.child.signalCode !== null) continue;
    proc.child.kill('SIGKILL');
    await once(proc.child, 'exit');
  }
  await nats?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Sends `create()` while crm is stopped, takes the gateway's heap snapshot while it waits for crm's answer
 * (the request and everything the gateway made of it are alive), then returns the snapshot and the answer.
 */
async function snapshotInFlight<T>(create: () => Promise<T>): Promise<{ snapshot: string; answer: T }> {
  const { held, answer } = await whileHeldAt(crm.child.pid!, Number(new URL(crmUrl).port), create, () =>
    heapSnapshot(gateway.child.pid!, snapshots.gateway, gatewayUrl),
  );
  return { snapshot: held, answer };
}

describe('a Customer encrypted to crm crosses the gateway unopened', () => {
  it('is stored by crm, and neither the gateway log nor its heap ever holds the email', async () => {
    const { sent, http, discovery, provider } = browser();
    await http.login('sales.heap', SALES_PASSWORD);
    const manifest = await discovery.loadManifest('crm');
    const meta = await fetchServiceMetadata(manifest.metaUrl, { http });
    const schema = meta.doctypes.find((d) => d.name === 'crm.Customer')!;
    await discovery.resolve('crm.Customer');

    const { snapshot, answer } = await snapshotInFlight(() =>
      provider.create({
        resource: 'crm.Customer',
        variables: { customer_name: 'Ada Sealed', email: EMAIL },
        meta: { schema },
      }),
    );
    const post = sent.find((r) => r.method === 'POST' && r.path === '/api/resource/crm.Customer')!;
    expect(post.contentType).toBe('application/jose');
    expect(String(decodeProtectedHeader(post.body).kid)).toMatch(/^svc:crm:/);
    // What passes back through the gateway to this user is masked.
    const data = answer.data as Record<string, unknown>;
    expect(data.email).toBe(PII_MASK);

    // Nothing the gateway wrote at debug level (it logged the create it forwarded), and nothing in its heap
    // while it held the request, holds the email; the JWE it forwarded is there.
    expect(gateway.output()).toMatch(
      /forward: POST \/api\/resource\/crm\.Customer -> crm 201 \(sealed JWE, \d+ bytes\)/,
    );
    expect(gateway.output()).not.toContain(EMAIL);
    expect(await fileContains(snapshot, post.body.slice(0, 64))).toBe(true);
    expect(await fileContains(snapshot, EMAIL)).toBe(false);

    // crm stored it: asked directly, signed as the gateway signs for Administrator, crm decrypts it.
    const target = `/api/resource/crm.Customer/${encodeURIComponent(String(data.name))}`;
    const principal = { user: 'Administrator', via: 'session' as const, roles: ['System Manager'] };
    const res = await fetch(`${crmUrl}${target}`, {
      headers: signInternalRequest(SECRET, { method: 'GET', target, body: '', principal }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: Record<string, unknown> }).data.email).toBe(EMAIL);
  }, 300_000);

  it('the same search finds an email the gateway did decrypt: one encrypted to its own key', async () => {
    const { fetch: send, http, discovery } = browser();
    await http.login('sales.heap', SALES_PASSWORD);
    const manifest = await discovery.loadManifest('crm');
    const meta = await fetchServiceMetadata(manifest.metaUrl, { http });
    const schema = meta.doctypes.find((d) => d.name === 'crm.Customer')!;
    // The SDK's fallback where an owner publishes no key: the gateway's own key, which the gateway opens.
    const security = new SecurityClient({ baseUrl: gatewayUrl });
    const url = `${gatewayUrl}/api/resource/crm.Customer`;
    const body = { customer_name: 'Ada Opened', email: CONTROL_EMAIL };
    const payload = await security.encryptPayload(body, url, 'POST', schema);
    expect(String(decodeProtectedHeader(payload.body).kid)).not.toMatch(/^svc:/);
    const { snapshot, answer } = await snapshotInFlight(() =>
      send(url, {
        method: 'POST',
        headers: { 'content-type': payload.contentType, [CSRF_HEADER]: http.csrf.get() ?? '' },
        body: payload.body,
      }),
    );
    expect(`${answer.status} ${await answer.clone().text()}`).toMatch(/^201 /);
    expect(await fileContains(snapshot, CONTROL_EMAIL)).toBe(true);
  }, 300_000);

  it("`m keys rotate --app crm` next to the running crm: the gateway's JWKS and the SDK follow it", async () => {
    const jwksKids = async () => {
      const res = await fetch(`${gatewayUrl}/api/v1/security/jwks`);
      const { keys } = (await res.json()) as { keys: Array<{ kid: string }> };
      return keys.map((k) => k.kid).filter((kid) => kid.startsWith('svc:crm:'));
    };
    const [before] = await jwksKids();
    const rotate = spawnM(['keys', 'rotate', '--app', 'crm', '--data-dir', join(dir, 'data')]);
    expect(await rotate.exited).toBe(0);
    const next = /new active key (svc:crm:\S+) in /.exec(rotate.output())?.[1];
    expect(next).toBeDefined();
    await waitUntil(
      async () => {
        const kids = await jwksKids();
        return kids[0] === next && kids[1] === before;
      },
      60_000,
      "the gateway's JWKS lists crm's new key first, the retired one after it",
    );

    const { sent, http, discovery, provider } = browser();
    await http.login('sales.heap', SALES_PASSWORD);
    const manifest = await discovery.loadManifest('crm');
    const meta = await fetchServiceMetadata(manifest.metaUrl, { http });
    const schema = meta.doctypes.find((d) => d.name === 'crm.Customer')!;
    await provider.create({
      resource: 'crm.Customer',
      variables: { customer_name: 'Ada Rotated', email: 'ada.rotated@example.com' },
      meta: { schema },
    });
    const post = sent.find((r) => r.method === 'POST' && r.path === '/api/resource/crm.Customer')!;
    expect(decodeProtectedHeader(post.body).kid).toBe(next);
  }, 300_000);
});
