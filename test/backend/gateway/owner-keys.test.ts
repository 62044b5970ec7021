/**
 * MACROSERVICE, bodies encrypted to the owning service (docs/security.md#encrypted-to-the-owning-service):
 * a real nats-server, a gateway and the crm and stock services in this process. Each service publishes its
 * own public key with its manifest, the gateway lists it in its one JWKS, the SDK encrypts a DocType's
 * body to its owner's key, and the gateway forwards that JWE unopened; the service decrypts it.
 */
import { constants, createCipheriv, createPublicKey, publicEncrypt, randomBytes } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Gateway } from '../../../backend/roots/gateway';
import type { MemoryKeyStore } from '../../../backend/security/keys/memory-key-store';
import type { EncryptionJwk, Jwks } from '../../../src/protocol';
import { PII_MASK } from '../../../src/protocol';
import { frameworkMDataProvider } from '../../../src/sdk/data';
import { fetchServiceMetadata } from '../../../src/sdk/data/service-metadata';
import { DiscoveryClient } from '../../../src/sdk/discovery';
import { createCsrfTokenStore, createHttpClient } from '../../../src/sdk/http';
import { SecurityClient } from '../../../src/sdk/security';
import { encryptJwe } from '../../../src/sdk/security/encrypt-payload';
import { GATEWAY_URL, gatewayRequest, MacroserviceDeployment } from '../../helpers/macroservice';
import { waitUntil } from '../../helpers/nats-server';
import { userWithRoles } from '../../helpers/roles';

const SECRET = 'owner-keys-test-secret-0123456789abcdef';
const EMAIL = 'grace.owner-keys@example.com';

const deployment = new MacroserviceDeployment(SECRET);
let gateway: Gateway;
let admin: string;
let salesUser: string;
let manifestKeys: Record<string, EncryptionJwk[]>;
let crmRing: MemoryKeyStore;

async function jwks(): Promise<EncryptionJwk[]> {
  const res = await gatewayRequest(gateway, admin, 'GET', '/api/v1/security/jwks');
  return ((await res.json()) as Jwks).keys as EncryptionJwk[];
}

/** What a browser sent: every request the SDK made, with its body. */
const sent: Array<{ method: string; path: string; contentType: string | null; body: string }> = [];

/** The SDK (security client, HTTP client, discovery, data provider) against the gateway as `authorization`. */
function sdk(authorization: string) {
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text();
    sent.push({
      method: request.method,
      path: new URL(request.url).pathname,
      contentType: request.headers.get('content-type'),
      body: body ?? '',
    });
    const headers = new Headers(request.headers);
    headers.set('authorization', authorization);
    return gateway.app.fetch(new Request(request.url, { method: request.method, headers, body }));
  };
  const security = new SecurityClient({ baseUrl: GATEWAY_URL, fetch });
  const http = createHttpClient({
    baseUrl: GATEWAY_URL,
    security,
    fetch,
    csrf: createCsrfTokenStore(undefined),
  });
  const discovery = new DiscoveryClient({ gatewayUrl: GATEWAY_URL, fetch });
  return { security, http, discovery, provider: frameworkMDataProvider({ discovery, http }) };
}

/**
 * A compact JWE made with node:crypto alone (RSA-OAEP-256 key wrap, A256GCM over the protected header as
 * AAD, RFC 7516 section 5.1): an implementation independent of jose and of the SDK.
 */
function handMadeJwe(jwk: EncryptionJwk, header: Record<string, unknown>, plaintext: string): string {
  const protectedB64 = Buffer.from(JSON.stringify(header)).toString('base64url');
  const cek = randomBytes(32);
  const iv = randomBytes(12);
  const publicKey = createPublicKey({ key: { kty: 'RSA', n: jwk.n, e: jwk.e }, format: 'jwk' });
  const wrapped = publicEncrypt(
    { key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    cek,
  );
  const cipher = createCipheriv('aes-256-gcm', cek, iv);
  cipher.setAAD(Buffer.from(protectedB64, 'ascii'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [protectedB64, wrapped, iv, ciphertext, cipher.getAuthTag()]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

function sealedHeader(kid: string, method: string, path: string): Record<string, unknown> {
  return {
    alg: 'RSA-OAEP-256',
    enc: 'A256GCM',
    kid,
    htm: method,
    htu: path,
    iat: Math.floor(Date.now() / 1000),
    jti: randomBytes(16).toString('base64url'),
  };
}

function postJose(authorization: string, path: string, jwe: string): Promise<Response> {
  return Promise.resolve(
    gateway.app.fetch(
      new Request(`${GATEWAY_URL}${path}`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/jose' },
        body: jwe,
      }),
    ),
  );
}

async function countOf(doctype: string): Promise<number> {
  const res = await gatewayRequest(gateway, admin, 'GET', `/api/resource/${doctype}?limit=1000`);
  return ((await res.json()) as { data: unknown[] }).data.length;
}

beforeAll(async () => {
  const started = await deployment.start({
    apps: ['crm', 'stock'],
    tmpPrefix: 'desk-owner-keys-',
    overrides: { 'security.payload_encryption.mode': 'metadata' },
  });
  gateway = started.gateway;
  admin = started.admin;
  salesUser = await userWithRoles(gateway.ctx, 'sales.owner.keys', ['Sales User']);
  crmRing = started.serviceKeys.crm!;
  manifestKeys = Object.fromEntries(
    Object.entries(started.services).map(([name, s]) => [name, s.manifest()?.encryptionKeys ?? []]),
  );
  await waitUntil(
    async () => (await jwks()).filter((k) => k.kid.startsWith('svc:')).length === 2,
    20_000,
    'the JWKS lists both services',
  );
}, 120_000);

afterAll(() => deployment.close());

describe('each service has its own encryption key', () => {
  it('publishes it with its manifest, and the gateway lists it in its one JWKS after its own', async () => {
    expect(manifestKeys.crm).toHaveLength(1);
    expect(manifestKeys.crm![0]!.kid).toMatch(/^svc:crm:[A-Za-z0-9_-]{43}$/);
    expect(manifestKeys.stock![0]!.kid).toMatch(/^svc:stock:/);

    const keys = await jwks();
    const own = (await gateway.ctx.security.keys.active()).kid;
    expect(keys[0]!.kid).toBe(own);
    expect(own).not.toMatch(/^svc:/);
    expect(keys).toContainEqual(manifestKeys.crm![0]);
    expect(keys).toContainEqual(manifestKeys.stock![0]);
    for (const key of keys) expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    // The config still names the gateway's own key (sign-in and the routes the gateway answers itself).
    const config = await gatewayRequest(gateway, admin, 'GET', '/api/v1/security/config');
    expect(((await config.json()) as { kid: string }).kid).toBe(own);
  });

  it('is not among the keys the gateway holds, and manifests browsers see leave it out', async () => {
    expect(await gateway.ctx.security.keys.find(manifestKeys.crm![0]!.kid)).toBeUndefined();
    const res = await gatewayRequest(gateway, admin, 'POST', '/api/gateway/discovery/query', {
      resources: ['crm.Customer'],
    });
    const answer = (await res.json()) as { services: Record<string, Record<string, unknown>> };
    expect(answer.services.crm).toBeDefined();
    expect(answer.services.crm).not.toHaveProperty('encryptionKeys');
  });
});

describe('a body for a DocType is encrypted to its owner and forwarded unopened', () => {
  it('creates a Customer through the SDK: the JWE names crm, the gateway never decrypts, crm stores it', async () => {
    const find = vi.spyOn(gateway.ctx.security.keys, 'find');
    sent.length = 0;
    const { provider, discovery, http } = sdk(salesUser);
    const crm = await discovery.loadManifest('crm');
    const meta = await fetchServiceMetadata(crm.metaUrl, { http });
    const schema = meta.doctypes.find((d) => d.name === 'crm.Customer')!;
    const { data } = await provider.create({
      resource: 'crm.Customer',
      variables: { customer_name: 'Grace Owner', email: EMAIL },
      meta: { schema },
    });
    find.mockRestore();

    const post = sent.find((r) => r.method === 'POST' && r.path === '/api/resource/crm.Customer')!;
    expect(post.contentType).toBe('application/jose');
    expect(post.body).not.toContain(EMAIL);
    expect(decodeProtectedHeader(post.body).kid).toBe(manifestKeys.crm![0]!.kid);
    // The gateway looked up no key at all: it opened nothing.
    expect(find).not.toHaveBeenCalled();
    // A Sales User may create but not read personal data: the answer passing back is masked.
    expect((data as Record<string, unknown>).email).toBe(PII_MASK);

    const read = await gatewayRequest(gateway, admin, 'GET', `/api/resource/crm.Customer/${data.name}`);
    expect(read.status).toBe(200);
    expect(((await read.json()) as { data: Record<string, unknown> }).data.email).toBe(EMAIL);
  });

  it('sends a stock.Item, which has no flagged field, as plain JSON', async () => {
    sent.length = 0;
    const { provider } = sdk(admin);
    await provider.create({
      resource: 'stock.Item',
      variables: { item_code: 'OWNER-KEY-1', item_name: 'Owner key bolt' },
    });
    const post = sent.find((r) => r.method === 'POST' && r.path === '/api/resource/stock.Item')!;
    expect(post.contentType).toBe('application/json');
  });

  it('a JWE to crm made by node:crypto alone (not jose) is opened by crm', async () => {
    const path = '/api/resource/crm.Customer';
    const jwe = handMadeJwe(
      manifestKeys.crm![0]!,
      sealedHeader(manifestKeys.crm![0]!.kid, 'POST', path),
      JSON.stringify({ customer_name: 'Hand Made', email: 'hand.made@example.com' }),
    );
    const res = await postJose(admin, path, jwe);
    expect(res.status).toBe(201);
    expect(((await res.json()) as { data: Record<string, unknown> }).data.email).toBe(
      'hand.made@example.com',
    );
  });
});

describe('what the gateway refuses of a sealed body', () => {
  it('a JWE to crm sent to a stock route is 400 key_not_for_service, and stock stores nothing', async () => {
    const path = '/api/resource/stock.Item';
    const key = manifestKeys.crm![0]!;
    const publicKey = createPublicKey({ key: { kty: 'RSA', n: key.n, e: key.e }, format: 'jwk' });
    const cryptoKey = await crypto.subtle.importKey(
      'jwk',
      publicKey.export({ format: 'jwk' }),
      { name: 'RSA-OAEP', hash: 'SHA-256' },
      false,
      ['encrypt'],
    );
    const before = await countOf('stock.Item');
    const jwe = await encryptJwe(
      JSON.stringify({ item_code: 'MISROUTED-1', item_name: 'Misrouted' }),
      cryptoKey,
      key.kid,
      {
        htm: 'POST',
        htu: path,
      },
    );
    const res = await postJose(admin, path, jwe);
    expect(res.status).toBe(400);
    const body = await res.text();
    expect(JSON.parse(body).error.code).toBe('key_not_for_service');
    expect(body).not.toContain(key.kid);
    expect(await countOf('stock.Item')).toBe(before);
  });

  it('a JWE to crm sent to a route the gateway answers itself is 400 key_not_for_service, even one that reads no body', async () => {
    const key = manifestKeys.crm![0]!;
    for (const path of ['/api/method/logout', '/api/method/platform.users.list']) {
      const header = sealedHeader(key.kid, 'POST', path);
      const res = await postJose(admin, path, handMadeJwe(key, header, '{}'));
      expect(`${res.status} ${path}`).toBe(`400 ${path}`);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('key_not_for_service');
    }
  });

  it('the same sealed JWE twice: the second is 400 replayed at the gateway', async () => {
    const path = '/api/resource/crm.Customer';
    const key = manifestKeys.crm![0]!;
    const jwe = handMadeJwe(
      key,
      sealedHeader(key.kid, 'POST', path),
      JSON.stringify({ customer_name: 'Once Only' }),
    );
    expect((await postJose(admin, path, jwe)).status).toBe(201);
    const again = await postJose(admin, path, jwe);
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('replayed');
  });

  it('a sealed JWE bound to another path is refused before forwarding (400 decryption_failed)', async () => {
    const key = manifestKeys.crm![0]!;
    const jwe = handMadeJwe(
      key,
      sealedHeader(key.kid, 'POST', '/api/resource/crm.Lead'),
      JSON.stringify({ customer_name: 'Wrong Path' }),
    );
    const res = await postJose(admin, '/api/resource/crm.Customer', jwe);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('decryption_failed');
  });

  it('one flipped ciphertext bit is refused by crm with the one decryption error', async () => {
    const path = '/api/resource/crm.Customer';
    const key = manifestKeys.crm![0]!;
    const jwe = handMadeJwe(
      key,
      sealedHeader(key.kid, 'POST', path),
      JSON.stringify({ customer_name: 'Flipped' }),
    );
    const parts = jwe.split('.');
    const ciphertext = Buffer.from(parts[3]!, 'base64url');
    ciphertext[0] = ciphertext[0]! ^ 1;
    parts[3] = ciphertext.toString('base64url');
    const res = await postJose(admin, path, parts.join('.'));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('decryption_failed');
  });

  it('a kid naming crm that crm does not hold is 400 unknown_key from crm', async () => {
    const path = '/api/resource/crm.Customer';
    const key = manifestKeys.crm![0]!;
    const jwe = handMadeJwe(
      key,
      sealedHeader('svc:crm:not-a-key-crm-holds', 'POST', path),
      JSON.stringify({ customer_name: 'Unknown Kid' }),
    );
    const res = await postJose(admin, path, jwe);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unknown_key');
  });
});

describe("a rotation of a service's keys", () => {
  it('reaches the JWKS within a heartbeat; the SDK moves to the new key and the old one still opens', async () => {
    const old = manifestKeys.crm![0]!;
    await crmRing.rotate();
    const next = `svc:crm:${(await crmRing.active()).kid}`;
    await waitUntil(
      async () => {
        const kids = (await jwks()).map((k) => k.kid).filter((kid) => kid.startsWith('svc:crm:'));
        return kids[0] === next && kids[1] === old.kid;
      },
      20_000,
      "the JWKS lists crm's new key first, then its retired one",
    );

    const { security } = sdk(admin);
    expect((await security.keyFor('crm')).kid).toBe(next);
    // A JWE made from a JWKS fetched before the rotation still opens during the grace period.
    const path = '/api/resource/crm.Customer';
    const jwe = handMadeJwe(
      old,
      sealedHeader(old.kid, 'POST', path),
      JSON.stringify({ customer_name: 'Old Key' }),
    );
    expect((await postJose(admin, path, jwe)).status).toBe(201);
  });
});
