/**
 * What an encrypted create costs the server through the whole platform, against a bare server doing the
 * same request's unavoidable parts, on a PostgreSQL server and on PGlite, all measured in one run.
 *
 * The request: `POST /api/resource/crm.Customer` (the stock CRM's DocType whose `email` and `phone` are
 * `pii`), a compact JWE body as the browser SDK makes it (`encryptJwe`: RSA-OAEP-256 + A256GCM, `kid`,
 * `htm`, `htu`, `iat`, `jti`), answered 201 with the record. The SDK sends no `Idempotency-Key`; a third
 * side sends the same request with one of its own each (an API client that retries safely), whose record
 * the platform stores beside the write.
 *
 * - platform: the real MONOLITH app (`createMonolith`, payload encryption in its default `metadata` mode) on
 *   @hono/node-server: the middleware chain (host check, rate limit, body limit, JWE decryption with the
 *   replay check of `jti`/`iat`, CSRF, idempotency (with a key: the claim, then the answer stored in the
 *   write's transaction), API-key auth), the permission
 *   check, validation against the DocType's model, naming, at-rest encryption of `email` and `phone` with a
 *   data key each and their blind indexes, the insert and its audit, the answer (docs/security.md);
 * - bare: a one-route Hono app on @hono/node-server that reads the body, opens the JWE (one
 *   `privateDecrypt` + AES-256-GCM, bench/support/bare-rpc-servers.ts), parses the JSON and inserts it into
 *   the same `records` table with one SQL statement, then answers 201 with the row. None of the rest.
 *
 * Both servers run in this process, each on a database of its own (on PostgreSQL two databases of one
 * throwaway server, bench/support/postgres-server.ts; on PGlite two in-memory instances, so PGlite's work
 * is in the figure, while the PostgreSQL server's own processes are not). The load generator is a child
 * process (bench/support/post-generator.mjs, concurrency `CONCURRENCY`, every body sent once), so this
 * process's CPU (`process.cpuUsage`, every thread) over a load is the serving side's alone. The sides
 * alternate in `ROUNDS` rounds (the order reversed every other round); printed are the medians of the
 * rounds' CPU per request, the ratios to the bare server, and the throughput.
 */

import { generateKeyPairSync } from 'node:crypto';
import { Hono } from 'hono';
import { importJWK } from 'jose';
import { loadConfig } from '../backend/config/load-config';
import type { Database } from '../backend/db/database';
import { openDatabase } from '../backend/db/open-database';
import { createMonolith } from '../backend/roots/monolith';
import { MemoryKeyStore } from '../backend/security/keys/memory-key-store';
import { startServer } from '../backend/server';
import { encryptJwe } from '../src/sdk/security/encrypt-payload';
import { openJwe } from './support/bare-rpc-servers';
import { type LoadFigures, runLoad, startGenerator } from './support/post-load';
import { startPostgres } from './support/postgres-server';

const DOCTYPE = 'crm.Customer';
const PATH = `/api/resource/${DOCTYPE}`;
const CONCURRENCY = 16;
const ROUNDS = 5;
const PER_ROUND = 400;
const WARMUP = 400;

/** A server under test: where it listens, what every request carries, and how it encrypts a body. */
interface Target {
  url: string;
  headers: Record<string, string>;
  encrypt(plaintext: string): Promise<string>;
  close(): Promise<void>;
}

const encrypter = async (jwk: JsonWebKey, kid: string) => {
  const key = (await importJWK(jwk as Parameters<typeof importJWK>[0], 'RSA-OAEP-256')) as CryptoKey;
  return (plaintext: string) => encryptJwe(plaintext, key, kid, { htm: 'POST', htu: PATH });
};

/** The platform on `database`, with an Administrator API key for the requests. */
async function startPlatform(database: Database): Promise<Target> {
  const config = loadConfig({
    env: {},
    overrides: {
      // The limiter stays in the chain but cannot trigger: one client sends far more than a real one would.
      'security.rate_limit.max_requests': 1_000_000_000,
    },
  });
  const keys = await MemoryKeyStore.create({ graceMs: 86_400_000 });
  const { app, ctx, close } = await createMonolith(config, { log: () => {}, database, keys });
  const server = await startServer(app, { host: '127.0.0.1', port: 0 });
  const { api_key, api_secret } = await ctx.security.auth.generateApiKey('Administrator');
  const active = await keys.active();
  return {
    url: server.url,
    headers: { 'content-type': 'application/jose', authorization: `token ${api_key}:${api_secret}` },
    encrypt: await encrypter(active.publicJwk as JsonWebKey, active.kid),
    async close() {
      await server.close();
      await close();
      await database.close();
    },
  };
}

/** The bare Hono server on `database`: decrypt, parse, one INSERT. */
async function startBare(database: Database): Promise<Target> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  let next = 0;
  const app = new Hono();
  app.post('/api/resource/:doctype', async (c) => {
    const token = await c.req.text();
    const body = JSON.parse(openJwe(token, privateKey).toString('utf8')) as Record<string, unknown>;
    const name = `BARE-${++next}`;
    await database.query('INSERT INTO records (doctype, name, data) VALUES ($1, $2, $3)', [
      c.req.param('doctype'),
      name,
      JSON.stringify(body),
    ]);
    return c.json({ data: { name, ...body } }, 201);
  });
  const server = await startServer(app, { host: '127.0.0.1', port: 0 });
  return {
    url: server.url,
    headers: { 'content-type': 'application/jose' },
    encrypt: await encrypter(publicKey.export({ format: 'jwk' }) as JsonWebKey, 'bare'),
    async close() {
      await server.close();
      await database.close();
    },
  };
}

let serial = 0;
/** `count` JWE bodies for `target`, each a different customer. */
async function bodies(target: Target, count: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = ++serial;
    const customer = {
      customer_name: `Customer ${n}`,
      email: `customer${n}@example.com`,
      phone: `+44 20 7946 ${String(n % 10_000).padStart(4, '0')}`,
      status: 'Active',
    };
    out.push(await target.encrypt(JSON.stringify(customer)));
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The sides of a comparison, in the order of the odd rounds (the even rounds run them reversed). */
const SIDES = ['bare', 'platform', 'platformKeyed'] as const;
type SideName = (typeof SIDES)[number];

/** Per side, each round's CPU milliseconds per request and requests per second. */
type Figures = Record<SideName, { cpu: number[]; rate: number[] }>;

/** One comparison: the platform and the bare server on databases opened by `open`. */
async function compare(
  open: (name: string) => Promise<Database>,
  generator: ReturnType<typeof startGenerator>,
): Promise<Figures> {
  const platform = await startPlatform(await open('platform'));
  const bare = await startBare(await open('bare'));
  const figures: Figures = {
    bare: { cpu: [], rate: [] },
    platform: { cpu: [], rate: [] },
    platformKeyed: { cpu: [], rate: [] },
  };
  const load = async (side: SideName, count: number): Promise<LoadFigures> => {
    const target = side === 'bare' ? bare : platform;
    return runLoad(generator, {
      url: target.url,
      path: PATH,
      headers: target.headers,
      bodies: await bodies(target, count),
      connections: CONCURRENCY,
      status: 201,
      keyHeader: side === 'platformKeyed' ? 'Idempotency-Key' : undefined,
    });
  };
  try {
    // Warm-up (JIT, connection pools), not counted.
    for (const side of SIDES) await load(side, WARMUP);
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 ? [...SIDES].reverse() : SIDES) {
        const f = await load(side, PER_ROUND);
        figures[side].cpu.push(f.cpuMs / PER_ROUND);
        figures[side].rate.push(PER_ROUND / (f.wallMs / 1000));
      }
    }
  } finally {
    await platform.close();
    await bare.close();
  }
  return figures;
}

const generator = startGenerator();
const results: { label: string; figures: Figures }[] = [];
try {
  const postgres = await startPostgres();
  if (postgres === undefined) {
    console.log('PostgreSQL is not installed: the PostgreSQL rows are skipped');
  } else {
    try {
      const open = (name: string) => openDatabase({ databaseUrl: postgres.createDatabase(name) });
      results.push({ label: 'PostgreSQL', figures: await compare(open, generator) });
    } finally {
      await postgres.stop();
    }
  }
  results.push({ label: 'PGlite', figures: await compare(() => openDatabase({ memory: true }), generator) });
} finally {
  generator.kill();
}

const LABELS: Record<SideName, string> = {
  bare: 'bare Hono: decrypt + one INSERT',
  platform: "platform, the SDK's request",
  platformKeyed: 'platform, with Idempotency-Key',
};
console.log(
  `\nserver CPU per encrypted POST ${PATH} (process.cpuUsage of the serving process, every thread), ` +
    `medians of ${ROUNDS} alternating rounds of ${PER_ROUND}, concurrency ${CONCURRENCY}`,
);
for (const { label, figures } of results) {
  const bareCpu = median(figures.bare.cpu);
  console.log(`  ${label}`);
  for (const side of SIDES) {
    const cpu = median(figures[side].cpu);
    console.log(
      `    ${LABELS[side].padEnd(34)} ${cpu.toFixed(3)} ms CPU/request  ${(cpu / bareCpu).toFixed(2)}x  ` +
        `${median(figures[side].rate).toFixed(0).padStart(5)} req/s`,
    );
  }
}
for (const { label, figures } of results) {
  const ratio = (side: SideName) => (median(figures[side].cpu) / median(figures.bare.cpu)).toFixed(2);
  console.log(`encrypted create CPU / bare server, ${label}: ${ratio('platform')}x`);
  console.log(
    `encrypted create with Idempotency-Key CPU / bare server, ${label}: ${ratio('platformKeyed')}x`,
  );
}
