import nodeCrypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryKeyStore } from '../../../backend/security/keys/memory-key-store';
import { createTestApp, type TestApp } from '../../helpers/test-app';
import {
  craftJwe,
  errorOf,
  memoryKeys,
  rawJwe,
  recordCount,
  sdkJwe,
  sendJose,
} from '../security/jwe-support';

// Metadata mode (the shipped default): crm.Customer has `pii` fields and must be encrypted; crm.Lead not.
const CUSTOMERS = '/api/resource/crm.Customer';
const LEADS = '/api/resource/crm.Lead';

let t: TestApp;
let now = Date.now();
beforeAll(async () => {
  const keys = await MemoryKeyStore.create({ graceMs: 60_000, now: () => now });
  t = await createTestApp({
    config: {
      'security.payload_encryption.mode': 'metadata',
      'security.payload_encryption.key_grace_seconds': 60,
      'security.payload_encryption.jwks_max_age_seconds': 30,
    },
    keys,
  });
});
afterAll(async () => {
  await t?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Sends a JWE to create a customer and checks the refusal: status, code, no record, kid not echoed. */
async function expectRefused(jwe: string, status: number, code: string, path = CUSTOMERS, method = 'POST') {
  const before = await recordCount(t.ctx, 'crm.Customer');
  const res = await sendJose(t, method, path, jwe);
  const text = await res.text();
  expect(res.status).toBe(status);
  expect(JSON.parse(text).error.code).toBe(code);
  expect(await recordCount(t.ctx, 'crm.Customer')).toBe(before);
  return text;
}

function header(extra: Record<string, unknown> = {}) {
  return { alg: 'RSA-OAEP-256', enc: 'A256GCM', kid: 'k', htm: 'POST', htu: CUSTOMERS, ...extra };
}

describe('PayloadDecryptionMiddleware: accepted payloads', () => {
  it('hands the handler the plaintext of a JWE made by the browser SDK', async () => {
    const jwe = await sdkJwe(t.ctx, 'POST', CUSTOMERS, { customer_name: 'Ada', email: 'ada@example.com' });
    const res = await sendJose(t, 'POST', CUSTOMERS, jwe);
    expect(res.status).toBeLessThan(300);
    const { data } = (await res.json()) as { data: { name: string; email: string } };
    expect(data.email).toBe('ada@example.com');
    const { rows } = await t.ctx.db.query<{ data: { customer_name: string } }>(
      'SELECT data FROM records WHERE doctype = $1 AND name = $2',
      ['crm.Customer', data.name],
    );
    expect(rows[0]!.data.customer_name).toBe('Ada');
  });

  it('never echoes a decrypted pii value in a validation error (rule 11)', async () => {
    const secret = 'not-an-email-4711@@';
    const jwe = await sdkJwe(t.ctx, 'POST', CUSTOMERS, { customer_name: 'Ada', email: secret });
    const res = await sendJose(t, 'POST', CUSTOMERS, jwe);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(await res.text()).not.toContain('4711');
  });

  it('refuses the same plaintext sent as JSON to a DocType with flagged fields (415)', async () => {
    const before = await recordCount(t.ctx, 'crm.Customer');
    const res = await t.request('POST', CUSTOMERS, { body: { customer_name: 'Plain' } });
    expect(res.status).toBe(415);
    expect((await errorOf(res)).code).toBe('encryption_required');
    expect(await recordCount(t.ctx, 'crm.Customer')).toBe(before);
  });

  it('lets plaintext through to a DocType without flagged fields', async () => {
    const res = await t.request('POST', LEADS, { body: { lead_name: 'Plain lead' } });
    expect(res.status).toBeLessThan(300);
  });

  it('never sniffs: a valid JWE labelled text/plain or application/json is 415', async () => {
    for (const type of ['text/plain', 'application/json']) {
      const jwe = await sdkJwe(t.ctx, 'POST', CUSTOMERS, { customer_name: 'Sniffed' });
      const before = await recordCount(t.ctx, 'crm.Customer');
      const res = await t.request('POST', CUSTOMERS, { body: jwe, headers: { 'content-type': type } });
      expect(res.status).toBe(415);
      expect(await recordCount(t.ctx, 'crm.Customer')).toBe(before);
    }
  });
});

describe('PayloadDecryptionMiddleware: hostile headers are refused before any crypto', () => {
  const algs = ['none', 'dir', 'RSA1_5', 'RSA-OAEP', 'A256KW', 'ECDH-ES', 'PBES2-HS512+A256KW'];
  it.each(algs)('alg %s -> 400 decryption_failed, no RSA operation', async (alg) => {
    const kid = (await t.ctx.security.keys.active()).kid;
    const decrypt = vi.spyOn(nodeCrypto, 'privateDecrypt');
    const extra = alg.startsWith('PBES2') ? { p2c: 1_000_000_000, p2s: 'AAAAAAAAAAAAAAAAAAAAAA' } : {};
    await expectRefused(rawJwe(header({ alg, kid, ...extra })), 400, 'decryption_failed');
    expect(decrypt).not.toHaveBeenCalled();
  });

  it.each(['A128GCM', 'A256CBC-HS512'])('enc %s -> 400 decryption_failed', async (enc) => {
    const kid = (await t.ctx.security.keys.active()).kid;
    await expectRefused(rawJwe(header({ enc, kid })), 400, 'decryption_failed');
  });

  it('refuses zip: "DEF" (a decompression bomb) without inflating anything', async () => {
    const kid = (await t.ctx.security.keys.active()).kid;
    const bomb = Buffer.alloc(64 * 1024).toString('base64url');
    await expectRefused(
      rawJwe(header({ zip: 'DEF', kid }), ['AAAA', 'AAAAAAAAAAAAAAAA', bomb, 'AAAAAAAAAAAAAAAAAAAAAA']),
      400,
      'decryption_failed',
    );
  });

  it('refuses crit naming a parameter it does not understand', async () => {
    // jose will not even produce such a token, so it is built by hand.
    const kid = (await t.ctx.security.keys.active()).kid;
    await expectRefused(rawJwe(header({ kid, crit: ['exp'], exp: 1 })), 400, 'decryption_failed');
  });

  it.each([
    ['jku', 'https://evil.example/jwks.json'],
    ['x5u', 'https://evil.example/cert.pem'],
    ['jwk', { kty: 'RSA', n: 'AQAB', e: 'AQAB' }],
  ])('refuses a %s header without any outbound request', async (name, value) => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const jwe = await craftJwe(t.ctx, {
      method: 'POST',
      path: CUSTOMERS,
      plaintext: '{"customer_name":"Remote key"}',
      header: { [name]: value },
    });
    await expectRefused(jwe, 400, 'decryption_failed');
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it.each([
    ['missing', undefined],
    ['unknown', 'no-such-key'],
    ['a path', '../../etc/passwd'],
    ['10 KB long', 'k'.repeat(10_240)],
  ])('kid %s -> 400 unknown_key, the kid not echoed', async (_label, kid) => {
    const jwe = await craftJwe(t.ctx, {
      method: 'POST',
      path: CUSTOMERS,
      plaintext: '{"customer_name":"Kid"}',
      header: { kid },
    });
    const text = await expectRefused(jwe, 400, 'unknown_key');
    if (kid) expect(text).not.toContain(kid.slice(0, 12));
  });

  it('refuses a JWE made for another path or another method (rule 4)', async () => {
    const forLeads = await sdkJwe(t.ctx, 'POST', LEADS, { customer_name: 'Moved' });
    await expectRefused(forLeads, 400, 'decryption_failed');
    const forPut = await sdkJwe(t.ctx, 'PUT', CUSTOMERS, { customer_name: 'Moved' });
    await expectRefused(forPut, 400, 'decryption_failed');
  });
});

describe('PayloadDecryptionMiddleware: malformed and tampered tokens get one generic error', () => {
  it.each([
    ['header', 0],
    ['encrypted key', 1],
    ['IV', 2],
    ['ciphertext', 3],
    ['tag', 4],
  ])('one flipped bit in the %s -> 400 decryption_failed', async (_label, index) => {
    const jwe = await sdkJwe(t.ctx, 'POST', CUSTOMERS, { customer_name: 'Flip' });
    const parts = jwe.split('.');
    const segment = Buffer.from(parts[index]!, 'base64url');
    // Flip one bit in the middle of the segment, keeping its length. In the header, flip inside `htu`: a
    // flip inside `kid` names another key and is answered `unknown_key` (its own code, rule 3).
    const at = index === 0 ? segment.indexOf('"htu":"') + 10 : Math.floor(segment.length / 2);
    segment[at] = segment[at]! ^ 0x04;
    parts[index] = segment.toString('base64url');
    await expectRefused(parts.join('.'), 400, 'decryption_failed');
  });

  it('refuses a flipped padding bit that decodes to the same bytes (non-canonical base64url)', async () => {
    const jwe = await sdkJwe(t.ctx, 'POST', CUSTOMERS, { customer_name: 'Pad' });
    const parts = jwe.split('.');
    const tag = parts[4]!; // 16 bytes: 22 characters, the last one carries 4 unused bits
    const last = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    parts[4] = tag.slice(0, -1) + last[last.indexOf(tag.at(-1)!) ^ 1];
    await expectRefused(parts.join('.'), 400, 'decryption_failed');
  });

  it.each([
    ['four segments', (j: string) => j.split('.').slice(0, 4).join('.')],
    ['six segments', (j: string) => `${j}.AAAA`],
    ['characters outside base64url', (j: string) => j.replace(/\.(.)/, '.+$1')],
    ['whitespace', (j: string) => j.replace('.', ' .')],
    ['a trailing newline', (j: string) => `${j}\n`],
  ])('%s -> 400 decryption_failed', async (_label, mangle) => {
    const jwe = await sdkJwe(t.ctx, 'POST', CUSTOMERS, { customer_name: 'Shape' });
    await expectRefused(mangle(jwe), 400, 'decryption_failed');
  });

  it('answers 413 for a body over the limit before any crypto', async () => {
    const decrypt = vi.spyOn(nodeCrypto, 'privateDecrypt');
    const limit = t.ctx.config.security.payload_encryption.max_jwe_bytes;
    await expectRefused('A'.repeat(limit + 1), 413, 'payload_too_large');
    expect(decrypt).not.toHaveBeenCalled();
  });

  it('cuts a streamed body without Content-Length off at the limit (413)', async () => {
    const limit = t.ctx.config.security.payload_encryption.max_jwe_bytes;
    const chunk = new TextEncoder().encode('A'.repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > limit * 2) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const before = await recordCount(t.ctx, 'crm.Customer');
    const res = await t.app.fetch(
      new Request(`http://desk.test${CUSTOMERS}`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/jose' },
        duplex: 'half',
      } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect(sent).toBeLessThan(limit * 2);
    expect(await recordCount(t.ctx, 'crm.Customer')).toBe(before);
  });

  it.each([
    ['not UTF-8', new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
    ['not JSON', '{"customer_name": '],
    ['a __proto__ key', '{"customer_name":"P","__proto__":{"polluted":true}}'],
    ['an escaped __proto__ key', '{"customer_name":"P","\\u005f_proto__":{"polluted":true}}'],
    ['constructor.prototype', '{"customer_name":"P","constructor":{"prototype":{"polluted":true}}}'],
    ['nested 10,000 deep', `${'['.repeat(10_000)}${']'.repeat(10_000)}`],
  ])('decrypted plaintext %s -> 400 invalid_json, nothing polluted', async (_label, plaintext) => {
    const jwe = await craftJwe(t.ctx, { method: 'POST', path: CUSTOMERS, plaintext });
    await expectRefused(jwe, 400, 'invalid_json');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('PayloadDecryptionMiddleware: key rotation', () => {
  it('keeps a retired key decrypting during the grace period, then answers unknown_key', async () => {
    const keys = memoryKeys(t.ctx);
    const old = await keys.active();
    const oldJwe = () => sdkJwe(t.ctx, 'POST', CUSTOMERS, { customer_name: 'Old key' }, old.kid);
    const made = await oldJwe();
    await keys.rotate();
    expect((await keys.active()).kid).not.toBe(old.kid);

    // Requests encrypted to the old key keep flowing after the rotation...
    const during = await Promise.all([
      sendJose(t, 'POST', CUSTOMERS, made),
      sendJose(t, 'POST', CUSTOMERS, await oldJwe()),
    ]);
    for (const res of during) expect(res.status).toBeLessThan(300);
    const fresh = await sdkJwe(t.ctx, 'POST', CUSTOMERS, { customer_name: 'New key' });
    expect((await sendJose(t, 'POST', CUSTOMERS, fresh)).status).toBeLessThan(300);

    // ...and stop once the grace period is over.
    const late = await oldJwe();
    now += 61_000;
    await expectRefused(late, 400, 'unknown_key');
  });
});
