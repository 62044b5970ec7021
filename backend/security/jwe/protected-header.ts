import { base64url } from 'jose';
import { JWE_ALG, JWE_ENC } from '../../../src/protocol';
import { decryptionFailed, unknownKey } from './errors';

/** Longest protected header accepted, in base64url characters (checked before decoding: rule 6). */
export const MAX_PROTECTED_HEADER_CHARS = 16_384;

/**
 * Members a request JWE's protected header may carry. Everything else (`zip`, `jku`, `x5u`, `jwk`, `x5c`,
 * `epk`, `p2c`, ...) is refused rather than ignored, so no header can change how the server decrypts.
 */
const ALLOWED_MEMBERS = new Set(['alg', 'enc', 'kid', 'htm', 'htu', 'iat', 'jti', 'cty', 'typ', 'crit']);
/** Extension members this server understands, the only ones `crit` may name (RFC 7516 section 4.1.13). */
const UNDERSTOOD_CRITICAL = new Set(['htm', 'htu']);

/** The validated protected header of a request JWE. */
export interface RequestJweHeader {
  alg: typeof JWE_ALG;
  enc: typeof JWE_ENC;
  kid: string;
  /** Upper-case HTTP method the token was made for. */
  htm: string;
  /** Request path (no query) the token was made for. */
  htu: string;
  /** When the token was made, seconds since the epoch (checked against the replay window after decryption). */
  iat?: number;
  /** A random id, unique per token (the replay seen-set's key). */
  jti?: string;
}

/** The request a JWE must be bound to (docs/security.md#a-jwe-is-bound-to-its-request). */
export interface RequestTarget {
  method: string;
  /** Accepted spellings of the path: as sent (percent-encoded) and as decoded by the router. */
  paths: string[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes and checks a protected header without any crypto: size, base64url, UTF-8 JSON object, the one
 * allowed `alg`/`enc` pair, no unknown members, `crit` limited to `htm`/`htu`, and the `htm`/`htu` binding.
 * A missing or malformed `kid` is `unknown_key`; everything else is the generic `decryption_failed`.
 */
export function parseProtectedHeader(segment: string, target: RequestTarget): RequestJweHeader {
  if (segment.length > MAX_PROTECTED_HEADER_CHARS) throw decryptionFailed();
  let header: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(utf8.decode(base64url.decode(segment)));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw decryptionFailed();
    header = parsed as Record<string, unknown>;
  } catch (cause) {
    throw decryptionFailed(cause);
  }
  for (const member of Object.keys(header)) if (!ALLOWED_MEMBERS.has(member)) throw decryptionFailed();
  if (header.alg !== JWE_ALG || header.enc !== JWE_ENC) throw decryptionFailed();
  if ('crit' in header) checkCrit(header);
  if ('cty' in header && typeof header.cty !== 'string') throw decryptionFailed();
  if ('typ' in header && typeof header.typ !== 'string') throw decryptionFailed();
  const { kid, htm, htu } = header;
  if (typeof htm !== 'string' || htm !== target.method.toUpperCase()) throw decryptionFailed();
  if (typeof htu !== 'string' || !target.paths.includes(htu)) throw decryptionFailed();
  if ('iat' in header && !(Number.isSafeInteger(header.iat) && (header.iat as number) >= 0)) {
    throw decryptionFailed();
  }
  if ('jti' in header && !(typeof header.jti === 'string' && /^[A-Za-z0-9_-]{16,128}$/.test(header.jti))) {
    throw decryptionFailed();
  }
  if (typeof kid !== 'string' || !/^[A-Za-z0-9_.:-]{1,128}$/.test(kid)) throw unknownKey();
  return {
    alg: JWE_ALG,
    enc: JWE_ENC,
    kid,
    htm,
    htu,
    iat: header.iat as number | undefined,
    jti: header.jti as string | undefined,
  };
}

function checkCrit(header: Record<string, unknown>): void {
  const crit = header.crit;
  if (!Array.isArray(crit) || crit.length === 0) throw decryptionFailed();
  for (const name of crit) {
    if (typeof name !== 'string' || !UNDERSTOOD_CRITICAL.has(name) || !(name in header)) {
      throw decryptionFailed();
    }
  }
}
