/**
 * The SDK's JWE keys are imported once per JWKS key and reused for every body (cached by kid), imported
 * again when the JWKS changes a key under its kid, and forgotten when the JWKS drops it. The JWE made with
 * WebCrypto alone opens with jose and with node:crypto alone (RFC 7516 section 5.2), for a small form and
 * a 10 kB body.
 */
import {
  constants,
  createDecipheriv,
  generateKeyPairSync,
  type KeyObject,
  privateDecrypt,
} from 'node:crypto';
import { compactDecrypt, decodeProtectedHeader } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EncryptionJwk } from '../../../src/protocol';
import { SecurityClient } from '../../../src/sdk/security';
import { base64url, base64urlPortable } from '../../../src/sdk/security/base64url';

const ORIGIN = 'http://desk.test';
const PATH = '/api/resource/crm.Customer';
const FORM = { customer_name: 'Ada', email: 'ada@example.com', phone: '+44 20 7946 0000' };
const TEN_KB = {
  notes: 'é'.repeat(2_000) + 'x'.repeat(6_000),
  lines: Array.from({ length: 40 }, (_, i) => i),
};

function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const { n, e } = publicKey.export({ format: 'jwk' }) as { n: string; e: string };
  return { n, e, privateKey };
}

/** Two RSA key pairs, made once for the file (a key pair takes a while on a busy machine). */
const pairs = [keyPair(), keyPair()] as const;

/** Key pair `i` published under `kid`. */
function pairAs(i: 0 | 1, kid: string) {
  const { n, e, privateKey } = pairs[i];
  const jwk: EncryptionJwk = { kty: 'RSA', use: 'enc', alg: 'RSA-OAEP-256', kid, n, e };
  return { jwk, privateKey };
}

/** A strict-mode gateway whose JWKS is `keys()` at each fetch; counts what was fetched. */
function gateway(activeKid: string, keys: () => EncryptionJwk[]) {
  const fetched: string[] = [];
  const fetch: typeof globalThis.fetch = async (input) => {
    const path = new URL(String(input)).pathname;
    fetched.push(path);
    const body =
      path === '/api/v1/security/config'
        ? { mode: 'strict', jwks_uri: '/api/v1/security/jwks', routes: [], kid: activeKid }
        : { keys: keys() };
    return Response.json(body);
  };
  const jwksFetches = () => fetched.filter((p) => p === '/api/v1/security/jwks').length;
  return { fetch, jwksFetches };
}

/** Opens a compact JWE with node:crypto alone: RSA-OAEP-256 unwrap, A256GCM with the header as AAD. */
function openWithNodeCrypto(jwe: string, privateKey: KeyObject): string {
  const [header, wrapped, iv, ciphertext, tag] = jwe.split('.') as [string, string, string, string, string];
  const cek = privateDecrypt(
    { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.from(wrapped, 'base64url'),
  );
  const decipher = createDecipheriv('aes-256-gcm', cek, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(header, 'ascii'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
    'utf8',
  );
}

/** The `jwk` imports WebCrypto was asked for (the content keys are `raw` imports, one per body). */
function countJwkImports() {
  const importKey = vi.spyOn(crypto.subtle, 'importKey');
  return () => importKey.mock.calls.filter(([format]) => (format as string) === 'jwk').length;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the JWE key cache', () => {
  it('imports a kid it does not hold once, however many bodies wait for it, and reuses it after', async () => {
    const active = pairAs(0, 'k1');
    const { fetch, jwksFetches } = gateway('k1', () => [active.jwk]);
    const client = new SecurityClient({ baseUrl: ORIGIN, fetch });
    const jwkImports = countJwkImports();

    const first = await Promise.all(
      Array.from({ length: 8 }, () => client.encryptPayload(FORM, `${ORIGIN}${PATH}`, 'POST')),
    );
    const later = await client.encryptPayload(FORM, `${ORIGIN}${PATH}`, 'PUT');

    expect(jwkImports()).toBe(1);
    expect(jwksFetches()).toBe(1);
    for (const { body } of [...first, later]) expect(decodeProtectedHeader(body).kid).toBe('k1');
    // Every body has a content key and a jti of its own.
    expect(new Set(first.map(({ body }) => body.split('.')[1])).size).toBe(8);
    expect(new Set(first.map(({ body }) => decodeProtectedHeader(body).jti)).size).toBe(8);
  });

  it('imports a key again when the JWKS changes it under the same kid, and encrypts to the new one', async () => {
    const before = pairAs(0, 'k1');
    const after = pairAs(1, 'k1');
    let published = before.jwk;
    const { fetch, jwksFetches } = gateway('k1', () => [published]);
    const client = new SecurityClient({ baseUrl: ORIGIN, fetch });
    const old = await client.encryptPayload(FORM, `${ORIGIN}${PATH}`, 'POST');
    const jwkImports = countJwkImports();

    published = after.jwk;
    await client.refreshKeys();
    const renewed = await client.encryptPayload(FORM, `${ORIGIN}${PATH}`, 'POST');

    expect(jwksFetches()).toBe(2);
    expect(jwkImports()).toBe(1);
    expect(JSON.parse(openWithNodeCrypto(renewed.body, after.privateKey))).toEqual(FORM);
    expect(() => openWithNodeCrypto(renewed.body, before.privateKey)).toThrow();
    expect(JSON.parse(openWithNodeCrypto(old.body, before.privateKey))).toEqual(FORM);
  });

  it('keeps unchanged keys across a refetch and forgets the keys the JWKS no longer lists', async () => {
    const k1 = pairAs(0, 'k1');
    const k2 = pairAs(1, 'k2');
    let published = [k1.jwk, k2.jwk];
    const { fetch } = gateway('k1', () => published);
    const client = new SecurityClient({ baseUrl: ORIGIN, fetch });
    const held = await client.getKey('k1');
    const jwkImports = countJwkImports();

    published = [k1.jwk];
    await client.refreshKeys();

    expect(jwkImports()).toBe(0);
    expect(await client.getKey('k1')).toBe(held);
    await expect(client.getKey('k2')).rejects.toMatchObject({ code: 'encryption_failed' });
  });
});

describe('the JWE made with WebCrypto alone', () => {
  it.each([
    ['a small form', FORM],
    ['a 10 kB body', TEN_KB],
  ])('opens with jose and with node:crypto alone: %s', async (_, body) => {
    const active = pairAs(0, 'k1');
    const { fetch } = gateway('k1', () => [active.jwk]);
    const client = new SecurityClient({ baseUrl: ORIGIN, fetch });
    const { body: jwe, contentType } = await client.encryptPayload(body, `${ORIGIN}${PATH}?a=1`, 'post');

    expect(contentType).toBe('application/jose');
    expect(JSON.parse(openWithNodeCrypto(jwe, active.privateKey))).toEqual(body);
    const opened = await compactDecrypt(jwe, active.privateKey);
    expect(JSON.parse(new TextDecoder().decode(opened.plaintext))).toEqual(body);
    expect(opened.protectedHeader).toMatchObject({
      alg: 'RSA-OAEP-256',
      enc: 'A256GCM',
      kid: 'k1',
      htm: 'POST',
      htu: PATH,
    });
  });

  it('encodes base64url like Node does, at every length modulo 3, with or without a native encoder', () => {
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 151 + 7) & 255);
    for (let n = 0; n < 40; n++) {
      const part = bytes.subarray(n, n * 7 + 3);
      const expected = Buffer.from(part).toString('base64url');
      expect(base64url(part)).toBe(expected);
      expect(base64urlPortable(part)).toBe(expected);
    }
  });
});
