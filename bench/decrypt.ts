/**
 * The chain's own CPU cost per request, against bare servers doing the same work, all measured in one run:
 *
 * - encrypted: `POST /api/method/crm.api.ping` with a compact JWE body (the browser SDK's `encryptJwe`:
 *   RSA-OAEP-256 + A256GCM, `kid`, `htm`, `htu`, `iat`, `jti`) through the whole middleware chain of the real
 *   app (host check, rate limit, body limit, JWE decryption, replay check, CSRF, idempotency, auth) and the
 *   RPC handler, against a bare node:http server that does one `privateDecrypt` + AES-256-GCM per request
 *   and parses the JSON (bench/support/bare-rpc-servers.ts);
 * - plaintext: the same request as `application/json` through the app with payload encryption disabled,
 *   against a bare node:http server that parses the JSON, and a one-route Hono app on @hono/node-server
 *   doing the same (what the framework alone costs).
 *
 * Every server runs in this process and serves one side at a time; the load generator (undici, concurrency
 * `CONCURRENCY`, every body sent once) is a child process of its own (bench/support/post-generator.mjs), so
 * this process's CPU time (`process.cpuUsage`, which includes the libuv thread pool) over a side's run is
 * that server's CPU alone. The sides alternate in rounds, so load from elsewhere on the machine hits all of
 * them alike. Printed: CPU milliseconds per request of each side, the ratios to the baselines, and the
 * throughput of each side.
 */
import type { ChildProcess } from 'node:child_process';
import { constants, generateKeyPairSync, privateDecrypt, publicEncrypt } from 'node:crypto';
import { importJWK } from 'jose';
import { loadConfig } from '../backend/config/load-config';
import { openDatabase } from '../backend/db/open-database';
import { createMonolith } from '../backend/roots/monolith';
import { MemoryKeyStore } from '../backend/security/keys/memory-key-store';
import { startServer } from '../backend/server';
import { encryptJwe } from '../src/sdk/security/encrypt-payload';
import { startBareHonoServer, startBareJweServer, startBarePlainServer } from './support/bare-rpc-servers';
import { runLoad, startGenerator } from './support/post-load';

const CONCURRENCY = 32;
const PATH = '/api/method/crm.api.ping';
const ROUNDS = 3;
/** Requests per side and round; plaintext requests are much cheaper, so more of them give a stable figure. */
const ENCRYPTED_PER_ROUND = 1_000;
const PLAIN_PER_ROUND = 5_000;
const WARMUP_ENCRYPTED = 300;
const WARMUP_PLAIN = 2_000;

/** The real app on a real server in payload-encryption `mode`, with an API key for the requests. */
async function startPlatform(mode: 'strict' | 'disabled') {
  const config = loadConfig({
    env: {},
    overrides: {
      'security.payload_encryption.mode': mode,
      // The limiter stays in the chain but cannot trigger: one client sends far more than a real one would.
      'security.rate_limit.max_requests': 1_000_000_000,
    },
  });
  const database = await openDatabase({ memory: true });
  const keys = await MemoryKeyStore.create({ graceMs: 86_400_000 });
  const { app, ctx, close } = await createMonolith(config, { log: () => {}, database, keys });
  const server = await startServer(app, { host: '127.0.0.1', port: 0 });
  const { api_key, api_secret } = await ctx.security.auth.generateApiKey('Administrator');
  return {
    url: server.url,
    keys,
    authorization: `token ${api_key}:${api_secret}`,
    async close() {
      await server.close();
      await close();
      await database.close();
    },
  };
}

/** A side of the comparison: where to send, with which headers, and its bodies for each run. */
interface Side {
  label: string;
  url: string;
  headers: Record<string, string>;
  cpuMs: number;
  wallMs: number;
  requests: number;
}

/** Sends `bodies` to `side` from the generator; adds this process's CPU and the wall time to the side. */
async function run(generator: ChildProcess, side: Side, bodies: string[], counted = true): Promise<void> {
  const figures = await runLoad(generator, {
    url: side.url,
    path: PATH,
    headers: side.headers,
    bodies,
    connections: CONCURRENCY,
  }).catch((error: Error) => {
    throw new Error(`${side.label}: ${error.message}`);
  });
  if (!counted) return;
  side.cpuMs += figures.cpuMs;
  side.wallMs += figures.wallMs;
  side.requests += bodies.length;
}

/** `count` compact JWEs of `{}` for `POST PATH`, each with its own `jti`. */
async function jwes(publicKey: CryptoKey, kid: string, count: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++)
    out.push(await encryptJwe('{}', publicKey, kid, { htm: 'POST', htu: PATH }));
  return out;
}

/** CPU time of one `privateDecrypt` (RSA-OAEP-SHA256, 2048 bits) in a loop here, for reference only. */
function privateDecryptMs(): number {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const options = { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' };
  const wrapped = publicEncrypt({ ...options, key: publicKey }, Buffer.alloc(32, 7));
  for (let i = 0; i < 100; i++) privateDecrypt(options, wrapped);
  const n = 1_000;
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) privateDecrypt(options, wrapped);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000 / n;
}

const side = (label: string, url: string, headers: Record<string, string>): Side => ({
  label,
  url,
  headers,
  cpuMs: 0,
  wallMs: 0,
  requests: 0,
});

const encrypted = await startPlatform('strict');
const plain = await startPlatform('disabled');
const bareJwe = await startBareJweServer();
const barePlain = await startBarePlainServer();
const bareHono = await startBareHonoServer();
const generator = startGenerator();
try {
  const active = await encrypted.keys.active();
  const platformKey = (await importJWK(active.publicJwk, 'RSA-OAEP-256')) as CryptoKey;
  const bareKey = (await importJWK(bareJwe.publicJwk, 'RSA-OAEP-256')) as CryptoKey;
  const jose = 'application/jose';
  const json = 'application/json';
  const sides = {
    bareJwe: side('bare node:http, privateDecrypt + AES-GCM', bareJwe.url, { 'content-type': jose }),
    chainJwe: side('encrypted request through the chain', encrypted.url, {
      'content-type': jose,
      authorization: encrypted.authorization,
    }),
    barePlain: side('bare node:http, JSON', barePlain.url, { 'content-type': json }),
    bareHono: side('bare Hono on @hono/node-server, JSON', bareHono.url, { 'content-type': json }),
    chainPlain: side('plaintext request through the chain', plain.url, {
      'content-type': json,
      authorization: plain.authorization,
    }),
  };
  const plainBodies = (n: number) => Array.from({ length: n }, () => '{}');

  // Warm-up (JIT, connection pools), not counted.
  await run(generator, sides.bareJwe, await jwes(bareKey, 'bare', WARMUP_ENCRYPTED), false);
  await run(generator, sides.chainJwe, await jwes(platformKey, active.kid, WARMUP_ENCRYPTED), false);
  await run(generator, sides.barePlain, plainBodies(WARMUP_PLAIN), false);
  await run(generator, sides.bareHono, plainBodies(WARMUP_PLAIN), false);
  await run(generator, sides.chainPlain, plainBodies(WARMUP_PLAIN), false);

  for (let r = 0; r < ROUNDS; r++) {
    await run(generator, sides.bareJwe, await jwes(bareKey, 'bare', ENCRYPTED_PER_ROUND));
    await run(generator, sides.chainJwe, await jwes(platformKey, active.kid, ENCRYPTED_PER_ROUND));
    await run(generator, sides.barePlain, plainBodies(PLAIN_PER_ROUND));
    await run(generator, sides.bareHono, plainBodies(PLAIN_PER_ROUND));
    await run(generator, sides.chainPlain, plainBodies(PLAIN_PER_ROUND));
  }

  const cpu = (s: Side) => s.cpuMs / s.requests;
  const rate = (s: Side) => s.requests / (s.wallMs / 1000);
  console.log(
    `server CPU per request (process.cpuUsage of the server process, thread pool included); concurrency ` +
      `${CONCURRENCY}, ${ROUNDS} alternating rounds, load generator in its own process`,
  );
  for (const s of Object.values(sides)) {
    console.log(
      `  ${s.label.padEnd(42)} ${cpu(s).toFixed(3)} ms CPU/request   ${rate(s).toFixed(0).padStart(6)} req/s`,
    );
  }
  console.log(`  (one privateDecrypt alone, in a loop here: ${privateDecryptMs().toFixed(3)} ms CPU)`);
  console.log(
    `encrypted chain / bare privateDecrypt + AES-GCM: ${(cpu(sides.chainJwe) / cpu(sides.bareJwe)).toFixed(2)}x CPU, ` +
      `${(rate(sides.chainJwe) / rate(sides.bareJwe)).toFixed(2)}x throughput`,
  );
  console.log(
    `plaintext chain: ${cpu(sides.chainPlain).toFixed(3)} ms CPU/request, ` +
      `${(cpu(sides.chainPlain) / cpu(sides.barePlain)).toFixed(2)}x the bare JSON server's CPU, ` +
      `${(rate(sides.chainPlain) / rate(sides.barePlain)).toFixed(2)}x its throughput; ` +
      `${(cpu(sides.chainPlain) / cpu(sides.bareHono)).toFixed(2)}x the bare Hono app's CPU`,
  );
} finally {
  generator.kill();
  await Promise.all([encrypted.close(), plain.close(), bareJwe.close(), barePlain.close(), bareHono.close()]);
}
