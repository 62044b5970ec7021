/**
 * `npm run bench sdk`: the cost of `encryptPayload` on a 1 KB JSON body (strict mode, warm: config loaded and
 * key imported) against a bare WebCrypto encryption of the same bytes in the same run: a fresh AES-256-GCM key
 * encrypts the body and RSA-OAEP-256 wraps that key, which is the least any JWE of this shape must do. The
 * ratio is the SDK's overhead (policy check, JSON serialisation, JOSE header and base64url encoding).
 * Samples alternate between the two in rounds so machine noise hits both alike; medians per call are printed.
 */
import { webcrypto } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import { SecurityClient } from '../src/sdk/security/security-client';

const ROUNDS = 20;
const PER_ROUND = 100;
const URL_PATH = '/api/resource/crm.Customer';

function body1k(): Record<string, string> {
  const body: Record<string, string> = {};
  for (let i = 0; JSON.stringify(body).length < 1024; i++) body[`field_${i}`] = 'x'.repeat(40);
  return body;
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const { publicKey } = await generateKeyPair('RSA-OAEP-256', { modulusLength: 2048, extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', use: 'enc', alg: 'RSA-OAEP-256' };
  const answers: Record<string, unknown> = {
    '/api/v1/security/config': {
      mode: 'strict',
      jwks_uri: '/api/v1/security/jwks',
      routes: [],
      kid: 'bench',
    },
    '/api/v1/security/jwks': { keys: [jwk] },
  };
  const fetchStub = async (input: RequestInfo | URL) =>
    Response.json(answers[new URL(String(input), 'http://bench.local').pathname]);
  const security = new SecurityClient({ baseUrl: 'http://bench.local', fetch: fetchStub as typeof fetch });

  const body = body1k();
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  const rsaKey = await webcrypto.subtle.importKey('jwk', jwk, { name: 'RSA-OAEP', hash: 'SHA-256' }, false, [
    'encrypt',
  ]);

  const sdk = async () => {
    const out = await security.encryptPayload(body, URL_PATH, 'POST');
    if (out.contentType !== 'application/jose') throw new Error('not encrypted');
  };
  const bare = async () => {
    const cek = webcrypto.getRandomValues(new Uint8Array(32));
    const iv = webcrypto.getRandomValues(new Uint8Array(12));
    const aes = await webcrypto.subtle.importKey('raw', cek, 'AES-GCM', false, ['encrypt']);
    await webcrypto.subtle.encrypt({ name: 'AES-GCM', iv }, aes, bytes);
    await webcrypto.subtle.encrypt({ name: 'RSA-OAEP' }, rsaKey, cek);
  };

  for (let i = 0; i < 200; i++) {
    await sdk();
    await bare();
  }
  const samples = { sdk: [] as number[], bare: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of [
      ['sdk', sdk],
      ['bare', bare],
    ] as const) {
      for (let i = 0; i < PER_ROUND; i++) {
        const start = performance.now();
        await run();
        samples[name].push(performance.now() - start);
      }
    }
  }
  const sdkMedian = median(samples.sdk);
  const bareMedian = median(samples.bare);
  console.log(`body: ${bytes.length} bytes JSON, RSA-2048, ${ROUNDS * PER_ROUND} calls each (warm)`);
  console.log(
    `encryptPayload (jose CompactEncrypt, strict mode)  median ${(sdkMedian * 1000).toFixed(1)} µs/call`,
  );
  console.log(
    `bare WebCrypto RSA-OAEP-256 + AES-256-GCM          median ${(bareMedian * 1000).toFixed(1)} µs/call`,
  );
  console.log(`ratio encryptPayload / bare WebCrypto: ${(sdkMedian / bareMedian).toFixed(2)}x`);
}

await main();
