/**
 * The measurement of `npm run bench sdk`, run as it is in Node and, bundled, in Chromium: `encryptPayload`
 * (strict mode, warm: config loaded, key imported) against a bare WebCrypto implementation of the same
 * compact JWE (RFC 7516 section 7.1: `alg RSA-OAEP-256`, `enc A256GCM`, the same protected header members),
 * for a small form and a 10 kB body. The bare one is the least any caller must do: serialize the body,
 * draw a content key, IV and jti in one call, write the header (its constant part written once), wrap the
 * content key with the RSA key (imported once) while importing it, seal the body with the header as AAD,
 * and join the five parts. Batches alternate between
 * the two so machine noise hits both alike; the median batch time per call is reported.
 */
import type { EncryptionJwk } from '../../src/protocol';
import { SecurityClient } from '../../src/sdk/security/security-client';

/** One body size's result: median µs per call of each. */
export interface JweBenchRow {
  name: string;
  bytes: number;
  sdkUs: number;
  bareUs: number;
}

const URL_PATH = '/api/resource/crm.Customer';

/** The two bodies: a sign-up form and a 10 kB record. */
export function bodies(): Array<[string, Record<string, unknown>]> {
  const form = {
    customer_name: 'Ada Lovelace',
    email: 'ada@example.com',
    phone: '+44 20 7946 0000',
    city: 'London',
  };
  const record: Record<string, string> = {};
  for (let i = 0; JSON.stringify(record).length < 10_240; i++) record[`field_${i}`] = `value ${i} `.repeat(8);
  return [
    ['small form', form],
    ['10 kB record', record],
  ];
}

type Base64 = Uint8Array & { toBase64?: (o: { alphabet: 'base64url'; omitPadding: boolean }) => string };
// Node's Buffer over the bytes' own memory (no copy), where the engine has no toBase64.
const nodeBuffer = (
  globalThis as {
    Buffer?: { from(b: ArrayBufferLike, offset: number, length: number): { toString(e: string): string } };
  }
).Buffer;
const b64 = (bytes: Uint8Array): string =>
  (bytes as Base64).toBase64?.({ alphabet: 'base64url', omitPadding: true }) ??
  nodeBuffer!.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Runs both implementations over both bodies, `rounds` alternating batches of `perBatch` calls each. */
export async function measureJwe(
  jwk: EncryptionJwk,
  rounds: number,
  perBatch: number,
): Promise<JweBenchRow[]> {
  const answers: Record<string, unknown> = {
    '/api/v1/security/config': {
      mode: 'strict',
      jwks_uri: '/api/v1/security/jwks',
      routes: [],
      kid: jwk.kid,
    },
    '/api/v1/security/jwks': { keys: [jwk] },
  };
  const fetchStub = async (input: RequestInfo | URL) =>
    Response.json(answers[new URL(String(input), 'http://bench.local').pathname]);
  const security = new SecurityClient({ baseUrl: 'http://bench.local', fetch: fetchStub as typeof fetch });

  const utf8 = new TextEncoder();
  const rsa = await crypto.subtle.importKey(
    'jwk',
    { kty: 'RSA', n: jwk.n, e: jwk.e, alg: 'RSA-OAEP-256', ext: true },
    { name: 'RSA-OAEP', hash: 'SHA-256' },
    false,
    ['encrypt'],
  );
  // The bare side knows its key, method and URL: the header's constant part is written once, as the SDK
  // prepares its own per key (it must add the method and path per call).
  const headerStart = `{"alg":"RSA-OAEP-256","enc":"A256GCM","kid":${JSON.stringify(jwk.kid)},"htm":"POST","htu":${JSON.stringify(URL_PATH)}`;
  const bare = async (body: unknown): Promise<string> => {
    // One draw for the content key, the IV and the jti.
    const random = crypto.getRandomValues(new Uint8Array(60));
    const cekBytes = random.subarray(0, 32);
    const iv = random.subarray(32, 44);
    const header = b64(
      utf8.encode(
        `${headerStart},"iat":${Math.floor(Date.now() / 1000)},"jti":"${b64(random.subarray(44))}"}`,
      ),
    );
    // The wrap needs only the key's bytes: it runs while the content key is imported.
    const wrapping = crypto.subtle.encrypt({ name: 'RSA-OAEP' }, rsa, cekBytes);
    const sealing = crypto.subtle
      .importKey('raw', cekBytes, 'AES-GCM', false, ['encrypt'])
      .then((cek) =>
        crypto.subtle.encrypt(
          { name: 'AES-GCM', iv, additionalData: utf8.encode(header) },
          cek,
          utf8.encode(JSON.stringify(body)),
        ),
      );
    const [wrapped, sealed] = await Promise.all([wrapping, sealing]);
    const tagAt = sealed.byteLength - 16;
    return `${header}.${b64(new Uint8Array(wrapped))}.${b64(iv)}.${b64(new Uint8Array(sealed, 0, tagAt))}.${b64(
      new Uint8Array(sealed, tagAt),
    )}`;
  };
  const sdk = async (body: unknown): Promise<string> => {
    const out = await security.encryptPayload(body, URL_PATH, 'POST');
    if (out.contentType !== 'application/jose') throw new Error('not encrypted');
    return out.body;
  };

  const rows: JweBenchRow[] = [];
  for (const [name, body] of bodies()) {
    const batch = async (run: (b: unknown) => Promise<string>): Promise<number> => {
      const start = performance.now();
      for (let i = 0; i < perBatch; i++) await run(body);
      return ((performance.now() - start) * 1000) / perBatch;
    };
    // Warm-up: config, key import, JIT.
    for (let i = 0; i < 3; i++) {
      await batch(sdk);
      await batch(bare);
    }
    const times = { sdk: [] as number[], bare: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      // Which goes first alternates, so neither always follows the other's garbage.
      const order = r % 2 === 0 ? (['sdk', 'bare'] as const) : (['bare', 'sdk'] as const);
      for (const which of order) times[which].push(await batch(which === 'sdk' ? sdk : bare));
    }
    const bytes = utf8.encode(JSON.stringify(body)).length;
    rows.push({ name, bytes, sdkUs: median(times.sdk), bareUs: median(times.bare) });
  }
  return rows;
}
