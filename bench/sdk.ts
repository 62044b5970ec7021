/**
 * `npm run bench sdk`: the cost of `encryptPayload` (strict mode, warm) against a bare WebCrypto
 * implementation of the same compact JWE (RSA-OAEP-256 + A256GCM, same header members), for a small form
 * and a 10 kB body, in Node and in Chromium (the Debian /usr/bin/chromium through playwright-core, both
 * implementations bundled into one page script). The ratio is the SDK's overhead: the policy check, the
 * key lookup, the request binding. The measurement itself is bench/support/jwe-bench.ts.
 * Goal (docs/performance.md#benchmarks): <= 1.3x in both.
 */
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { EncryptionJwk } from '../src/protocol';
import { launchChromium } from '../test/e2e/support/browser';
import { type JweBenchRow, measureJwe } from './support/jwe-bench';

const ROUNDS = 21;
/**
 * Calls per timed batch: a page that is not cross-origin isolated reads a clock coarsened to 100 µs, so a
 * batch lasts several milliseconds (a small form's call is tens of microseconds in Chromium).
 */
const PER_BATCH = 200;

const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const { n, e } = publicKey.export({ format: 'jwk' }) as { n: string; e: string };
const jwk: EncryptionJwk = { kty: 'RSA', use: 'enc', alg: 'RSA-OAEP-256', kid: 'bench', n, e };

function print(where: string, rows: JweBenchRow[]): void {
  console.log(
    `${where} (RSA-2048, ${ROUNDS} alternating batches of ${PER_BATCH} calls each, median per call):`,
  );
  for (const r of rows) {
    console.log(
      `  ${r.name} (${r.bytes} bytes JSON): encryptPayload ${r.sdkUs.toFixed(1)} µs, bare WebCrypto ` +
        `${r.bareUs.toFixed(1)} µs: ${(r.sdkUs / r.bareUs).toFixed(2)}x (goal <= 1.3x)`,
    );
  }
}

/** The measurement bundled for the page: one script, the SDK's code and the bare implementation. */
async function pageScript(): Promise<string> {
  const out = await build({
    entryPoints: [join(import.meta.dirname, 'support', 'jwe-bench.ts')],
    bundle: true,
    format: 'iife',
    globalName: 'JweBench',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'warning',
  });
  return out.outputFiles[0]!.text;
}

async function inChromium(): Promise<JweBenchRow[]> {
  const script = await pageScript();
  const browser = await launchChromium({ handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
  try {
    const page = await browser.newPage();
    // A page of http://localhost (a secure context, where WebCrypto is available), answered here.
    await page.route('http://localhost/**', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>jwe</title>' }),
    );
    await page.goto('http://localhost/');
    await page.addScriptTag({ content: script });
    return await page.evaluate(
      ([key, rounds, perBatch]) =>
        (
          globalThis as unknown as {
            JweBench: { measureJwe: (k: unknown, r: number, p: number) => Promise<JweBenchRow[]> };
          }
        ).JweBench.measureJwe(key, rounds, perBatch),
      [jwk, ROUNDS, PER_BATCH] as const,
    );
  } finally {
    await browser.close();
  }
}

print('Node', await measureJwe(jwk, ROUNDS, PER_BATCH));
print('Chromium', await inChromium());
