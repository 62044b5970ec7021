/**
 * Encrypted-request throughput through the whole middleware chain (rate limit, JWE decryption, CSRF,
 * idempotency, auth, then an RPC handler) on a real server, at concurrency 32, against the bare cost of the
 * RSA step done the simplest way: `node:crypto.privateDecrypt` (RSA-OAEP-SHA256) in a sequential loop, in
 * this process, in the same run. Every request carries its own JWE, made in advance in the browser SDK's
 * format (`encryptJwe`: RSA-OAEP-256 + A256GCM, `kid`, `htm`, `htu`).
 *
 * The server decrypts the CEK with WebCrypto, which Node runs on the libuv thread pool, so concurrent
 * requests use every core: the ratio is above 1 when the chain adds less than that parallelism gains.
 */
import { constants, createPrivateKey, generateKeyPairSync, privateDecrypt, publicEncrypt } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { importJWK } from 'jose';
import { Pool } from 'undici';
import { createApp } from '../backend/app';
import { loadConfig } from '../backend/config/load-config';
import { createContext } from '../backend/create-context';
import { openDatabase } from '../backend/db/open-database';
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

async function main() {
  const config = loadConfig({
    env: {},
    overrides: {
      'security.payload_encryption.mode': 'strict',
      'security.rate_limit.enabled': false,
    },
  });
  const database = await openDatabase({ memory: true });
  const keys = await MemoryKeyStore.create({ graceMs: 86_400_000 });
  const ctx = await createContext(config, { log: () => {}, database, keys });
  const server = await startServer(createApp(ctx), { host: '127.0.0.1', port: 0 });
  const { api_key, api_secret } = await ctx.security.auth.generateApiKey('Administrator');
  const authorization = `token ${api_key}:${api_secret}`;
  const pool = new Pool(server.url, { connections: CONCURRENCY, pipelining: 1 });

  try {
    const active = await keys.active();
    const publicKey = (await importJWK(active.publicJwk, 'RSA-OAEP-256')) as CryptoKey;
    const bodies: string[] = [];
    for (let i = 0; i < WARMUP + REQUESTS; i++) {
      bodies.push(await encryptJwe('{}', publicKey, active.kid, { htm: 'POST', htu: PATH }));
    }

    const send = async (body: string) => {
      const res = await pool.request({
        method: 'POST',
        path: PATH,
        headers: { 'content-type': 'application/jose', authorization },
        body,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text}`);
    };
    const run = async (batch: string[]) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < batch.length) await send(batch[next++]!);
        }),
      );
    };

    await run(bodies.slice(0, WARMUP));
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
      const start = performance.now();
      const cpu = process.cpuUsage();
      await run(bodies.slice(WARMUP + r * perRound, WARMUP + (r + 1) * perRound));
      chainMs += performance.now() - start;
      const used = process.cpuUsage(cpu);
      chainCpuMs += (used.user + used.system) / 1000;
    }
    const base = baseOps / (baseMs / 1000);
    const chain = REQUESTS / (chainMs / 1000);

    console.log(`node:crypto.privateDecrypt RSA-OAEP-SHA256, sequential:  ${base.toFixed(0)} ops/s`);
    console.log(
      `encrypted requests through the whole chain, concurrency ${CONCURRENCY}: ${chain.toFixed(0)} req/s`,
    );
    console.log(`ratio (chain / privateDecrypt): ${(chain / base).toFixed(2)}x`);
    console.log(
      `cores busy during the chain run (server, client, thread pool): ${(chainCpuMs / chainMs).toFixed(2)} ` +
        `of ${availableParallelism()}; load average ${loadavg()[0]!.toFixed(1)}`,
    );
  } finally {
    await pool.close();
    await server.close();
    await ctx.close();
    await database.close();
  }
}

await main();
