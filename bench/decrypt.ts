/**
 * Encrypted-request throughput through the whole middleware chain (rate limit, JWE decryption, CSRF,
 * idempotency, auth, then an RPC handler) on a real server, at concurrency 32, against the bare cost of the
 * RSA step done the simplest way: `node:crypto.privateDecrypt` (RSA-OAEP-SHA256) in a sequential loop, in
 * this process, in the same run. Every request carries its own JWE, made in advance in the browser SDK's
 * format (`encryptJwe`: RSA-OAEP-256 + A256GCM, `kid`, `htm`, `htu`).
 *
 * The server decrypts the CEK with WebCrypto, which Node runs on the libuv thread pool, so concurrent
 * requests use every core: the ratio is above 1 when the chain adds less than that parallelism gains.
 *
 * As a reference it also runs the same requests as plaintext JSON through an app with encryption disabled,
 * and prints the process CPU time per request of each run (server, load generator and thread pool share the
 * machine's cores), so the cost of the chain and the cost of decryption can be told apart.
 */
import { constants, createPrivateKey, generateKeyPairSync, privateDecrypt, publicEncrypt } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { importJWK } from 'jose';
import { Pool } from 'undici';
import { loadConfig } from '../backend/config/load-config';
import { openDatabase } from '../backend/db/open-database';
import { createMonolith } from '../backend/roots/monolith';
import { MemoryKeyStore } from '../backend/security/keys/memory-key-store';
import { startServer } from '../backend/server';
import { encryptJwe } from '../src/sdk/security/encrypt-payload';

const CONCURRENCY = 32;
const REQUESTS = 3_000;
const WARMUP = 300;
/** The two sides alternate in rounds, so load from elsewhere on the machine hits both alike. */
const ROUNDS = 3;
const BASELINE_MS_PER_ROUND = 1_000;
const PATH = '/api/method/crm.api.ping';

/** Sequential `privateDecrypt` (RSA-OAEP, SHA-256) of a 32-byte CEK wrapped to a 2048-bit key. */
function baselineRunner(): (ms: number) => { ops: number; ms: number } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = createPrivateKey(privateKey.export({ format: 'pem', type: 'pkcs8' }));
  const wrapped = publicEncrypt(
    { key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.alloc(32, 7),
  );
  const decrypt = () =>
    privateDecrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, wrapped);
  for (let i = 0; i < 50; i++) decrypt();
  return (ms) => {
    let ops = 0;
    const start = performance.now();
    while (performance.now() - start < ms) {
      decrypt();
      ops++;
    }
    return { ops, ms: performance.now() - start };
  };
}

/** The real app on a real server in payload-encryption `mode`, with an API key for the requests. */
async function startChain(mode: 'strict' | 'disabled') {
  const config = loadConfig({
    env: {},
    overrides: {
      'security.payload_encryption.mode': mode,
      'security.rate_limit.enabled': false,
    },
  });
  const database = await openDatabase({ memory: true });
  const keys = await MemoryKeyStore.create({ graceMs: 86_400_000 });
  const { app, ctx, close } = await createMonolith(config, { log: () => {}, database, keys });
  const server = await startServer(app, { host: '127.0.0.1', port: 0 });
  const { api_key, api_secret } = await ctx.security.auth.generateApiKey('Administrator');
  const pool = new Pool(server.url, { connections: CONCURRENCY, pipelining: 1 });
  return {
    keys,
    pool,
    authorization: `token ${api_key}:${api_secret}`,
    async close() {
      await pool.close();
      await server.close();
      await close();
      await database.close();
    },
  };
}

/** Sends each body once, CONCURRENCY at a time; resolves with the wall and CPU milliseconds it took. */
async function drive(chain: Awaited<ReturnType<typeof startChain>>, contentType: string, batch: string[]) {
  const send = async (body: string) => {
    const res = await chain.pool.request({
      method: 'POST',
      path: PATH,
      headers: { 'content-type': contentType, authorization: chain.authorization },
      body,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text}`);
  };
  let next = 0;
  const start = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < batch.length) await send(batch[next++]!);
    }),
  );
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - start, cpuMs: (used.user + used.system) / 1000 };
}

async function main() {
  const encrypted = await startChain('strict');
  const { keys } = encrypted;
  try {
    const active = await keys.active();
    const publicKey = (await importJWK(active.publicJwk, 'RSA-OAEP-256')) as CryptoKey;
    const bodies: string[] = [];
    for (let i = 0; i < WARMUP + REQUESTS; i++) {
      bodies.push(await encryptJwe('{}', publicKey, active.kid, { htm: 'POST', htu: PATH }));
    }

    await drive(encrypted, 'application/jose', bodies.slice(0, WARMUP));
    const baseline = baselineRunner();
    const perRound = REQUESTS / ROUNDS;
    let baseOps = 0;
    let baseMs = 0;
    let chainMs = 0;
    let chainCpuMs = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const b = baseline(BASELINE_MS_PER_ROUND);
      baseOps += b.ops;
      baseMs += b.ms;
      const run = await drive(
        encrypted,
        'application/jose',
        bodies.slice(WARMUP + r * perRound, WARMUP + (r + 1) * perRound),
      );
      chainMs += run.ms;
      chainCpuMs += run.cpuMs;
    }
    const base = baseOps / (baseMs / 1000);
    const chain = REQUESTS / (chainMs / 1000);

    // The chain's own cost: the same requests as plaintext JSON through an app with encryption disabled.
    const plain = await startChain('disabled');
    let plainRun: { ms: number; cpuMs: number };
    try {
      const json = Array.from({ length: REQUESTS }, () => '{}');
      await drive(plain, 'application/json', json.slice(0, WARMUP));
      plainRun = await drive(plain, 'application/json', json);
    } finally {
      await plain.close();
    }
    const plainRate = REQUESTS / (plainRun.ms / 1000);
    const coreMs = (cpuMs: number) => (cpuMs / REQUESTS).toFixed(3);

    console.log(`node:crypto.privateDecrypt RSA-OAEP-SHA256, sequential:  ${base.toFixed(0)} ops/s`);
    console.log(
      `encrypted requests through the whole chain, concurrency ${CONCURRENCY}: ${chain.toFixed(0)} req/s`,
    );
    console.log(`ratio (chain / privateDecrypt): ${(chain / base).toFixed(2)}x`);
    console.log(
      `cores busy during the chain run (server, client, thread pool): ${(chainCpuMs / chainMs).toFixed(2)} ` +
        `of ${availableParallelism()}; load average ${loadavg()[0]!.toFixed(1)}`,
    );
    console.log(
      `reference: the same chain with plaintext JSON (encryption disabled): ${plainRate.toFixed(0)} req/s ` +
        `(${(plainRate / base).toFixed(2)}x)`,
    );
    console.log(
      `core time per request: plaintext chain ${coreMs(plainRun.cpuMs)} ms, encrypted chain ` +
        `${coreMs(chainCpuMs)} ms, one sequential privateDecrypt ${(1000 / base).toFixed(3)} ms ` +
        '(process CPU: server, client and thread pool together)',
    );
  } finally {
    await encrypted.close();
  }
}

await main();
