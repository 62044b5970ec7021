import { CompactEncrypt, importJWK } from 'jose';
import type { AppContext } from '../../../backend/context';
import type { MemoryKeyStore } from '../../../backend/security/keys/memory-key-store';
import { JOSE_CONTENT_TYPE } from '../../../src/protocol';
import { encryptJwe } from '../../../src/sdk/security/encrypt-payload';
import type { TestApp } from '../../helpers/test-app';

/** The test app's key store (createTestApp always uses a MemoryKeyStore). */
export function memoryKeys(ctx: AppContext): MemoryKeyStore {
  return ctx.security.keys as MemoryKeyStore;
}

/** A JWE exactly as the browser SDK makes it (`encryptJwe`), to the app's active key unless `kid` is given. */
export async function sdkJwe(
  ctx: AppContext,
  method: string,
  path: string,
  body: unknown,
  kid?: string,
): Promise<string> {
  const key = kid ? await ctx.security.keys.find(kid) : await ctx.security.keys.active();
  if (!key) throw new Error(`no key ${kid}`);
  const publicKey = (await importJWK(key.publicJwk, 'RSA-OAEP-256')) as CryptoKey;
  return encryptJwe(JSON.stringify(body), publicKey, key.kid, { htm: method.toUpperCase(), htu: path });
}

/**
 * A hand-made JWE with any protected header (jose `CompactEncrypt`), for hostile inputs. The header defaults
 * to the valid one; `header` members replace or add to it (`undefined` removes one).
 */
export async function craftJwe(
  ctx: AppContext,
  options: {
    method: string;
    path: string;
    plaintext: string | Uint8Array;
    header?: Record<string, unknown>;
  },
): Promise<string> {
  const key = await ctx.security.keys.active();
  const publicKey = (await importJWK(key.publicJwk, 'RSA-OAEP-256')) as CryptoKey;
  const header: Record<string, unknown> = {
    alg: 'RSA-OAEP-256',
    enc: 'A256GCM',
    kid: key.kid,
    htm: options.method,
    htu: options.path,
    ...options.header,
  };
  for (const [k, v] of Object.entries(header)) if (v === undefined) delete header[k];
  const bytes =
    typeof options.plaintext === 'string' ? new TextEncoder().encode(options.plaintext) : options.plaintext;
  return new CompactEncrypt(bytes)
    .setProtectedHeader(header as { alg: string; enc: string })
    .encrypt(publicKey);
}

/** Builds a compact JWE from raw segments (for headers jose refuses to produce, e.g. `alg: none`). */
export function rawJwe(header: Record<string, unknown>, rest = ['AAAA', 'AAAAAAAAAAAAAAAA', 'AAAA', 'AAAA']) {
  return [Buffer.from(JSON.stringify(header)).toString('base64url'), ...rest].join('.');
}

/** Sends a body as `application/jose`. */
export function sendJose(t: TestApp, method: string, path: string, jwe: string, headers = {}) {
  return t.request(method, path, { body: jwe, headers: { 'content-type': JOSE_CONTENT_TYPE, ...headers } });
}

/** The JSON error body of a response. */
export async function errorOf(res: Response): Promise<{ code: string; message: string }> {
  const body = (await res.json()) as { error: { code: string; message: string } };
  return body.error;
}

/** Number of stored records of a DocType (the observable effect of a create handler). */
export async function recordCount(ctx: AppContext, doctype: string): Promise<number> {
  const { rows } = await ctx.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM records WHERE doctype = $1',
    [doctype],
  );
  return Number(rows[0]!.n);
}
