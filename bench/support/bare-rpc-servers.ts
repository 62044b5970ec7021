/**
 * The baselines of `bench/decrypt`: bare node:http servers that answer `POST` with the same JSON as the
 * platform's `crm.api.ping` and do only the unavoidable work of a request, with none of the platform's chain.
 * - {@link startBareJweServer}: reads a compact JWE (RSA-OAEP-256 + A256GCM, the browser SDK's format),
 *   unwraps its key with one `node:crypto.privateDecrypt`, opens it with AES-256-GCM (the protected header as
 *   AAD) and parses the JSON plaintext.
 * - {@link startBarePlainServer}: reads a JSON body and parses it;
 * - {@link startBareHonoServer}: the same as a one-route Hono app on @hono/node-server, which the platform
 *   is built on, so what the framework costs and what the platform's chain adds can be told apart.
 */
import {
  constants,
  createDecipheriv,
  generateKeyPairSync,
  type KeyObject,
  privateDecrypt,
} from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { startServer } from '../../backend/server';

const ANSWER = Buffer.from(JSON.stringify({ message: 'pong' }));

/** A started baseline server. */
export interface BareServer {
  url: string;
  close(): Promise<void>;
}

/** A baseline that decrypts: also its public key as a JWK, for making request bodies. */
export interface BareJweServer extends BareServer {
  publicJwk: { kty: 'RSA'; n: string; e: string };
}

function answer(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': ANSWER.length,
    'cache-control': 'no-store',
  });
  res.end(ANSWER);
}

async function serve(handle: (body: Buffer) => void): Promise<BareServer> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        handle(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
        answer(res);
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Opens a compact JWE (RSA-OAEP-256 + A256GCM): one `privateDecrypt`, one AES-256-GCM decipher; its plaintext. */
export function openJwe(token: string, key: KeyObject): Buffer {
  const [protectedB64, encryptedKey, iv, ciphertext, tag] = token.split('.') as [
    string,
    string,
    string,
    string,
    string,
  ];
  const cek = privateDecrypt(
    { key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
    Buffer.from(encryptedKey, 'base64url'),
  );
  const decipher = createDecipheriv('aes-256-gcm', cek, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(protectedB64, 'latin1'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]);
}

/** Starts the decrypting baseline with a fresh 2048-bit RSA key. */
export async function startBareJweServer(): Promise<BareJweServer> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = publicKey.export({ format: 'jwk' }) as { n: string; e: string };
  const server = await serve((body) => {
    JSON.parse(openJwe(body.toString('latin1'), privateKey).toString('utf8'));
  });
  return { ...server, publicJwk: { kty: 'RSA', n: jwk.n, e: jwk.e } };
}

/** Starts the plaintext baseline. */
export function startBarePlainServer(): Promise<BareServer> {
  return serve((body) => {
    JSON.parse(body.toString('utf8'));
  });
}

/** Starts the bare Hono baseline: `POST /api/method/:method` parses the JSON body and answers the same. */
export async function startBareHonoServer(): Promise<BareServer> {
  const app = new Hono();
  app.post('/api/method/:method', async (c) => {
    await c.req.json();
    c.header('Cache-Control', 'no-store');
    return c.json({ message: 'pong' });
  });
  const server = await startServer(app, { host: '127.0.0.1', port: 0 });
  return { url: server.url, close: () => server.close() };
}
