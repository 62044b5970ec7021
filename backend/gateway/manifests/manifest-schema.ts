import { z } from 'zod';
import { DOCTYPE_NAME_PATTERN } from '../../../src/contract/doctype';
import { JWE_ALG, type ServiceManifest, serviceKidPrefix } from '../../../src/protocol';
import { INTEGRITY_PATTERN } from '../../apps/remote-integrity';

/** Pattern of a service name (the same as an app name). */
export const SERVICE_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

const httpUrl = z
  .string()
  .max(2048)
  .refine((v) => /^https?:\/\//.test(v) && URL.canParse(v), 'an absolute http(s) URL');

/** Most keys a manifest may publish: the active one and those retired within their grace period. */
const MAX_PUBLISHED_KEYS = 16;

/**
 * A public RSA encryption key as a service publishes it: exactly the JWKS members (`strict`: a private
 * member such as `d` makes the manifest invalid, so it can never reach the JWKS), a modulus of 2048 to
 * 8192 bits.
 */
const publishedKey = z
  .object({
    kty: z.literal('RSA'),
    use: z.literal('enc'),
    alg: z.literal(JWE_ALG),
    kid: z.string().regex(/^svc:[a-z][a-z0-9_]{0,63}:[A-Za-z0-9_-]{1,64}$/),
    n: z.string().regex(/^[A-Za-z0-9_-]{342,1366}$/),
    e: z.string().regex(/^[A-Za-z0-9_-]{1,16}$/),
  })
  .strict();

/**
 * A manifest as it travels on the bus (a KV value or inside a broadcast). Everything on the bus is
 * validated before a gateway believes it: a malformed manifest is ignored (and logged), never served.
 */
export const serviceManifestSchema = z
  .object({
    service: z.string().regex(SERVICE_NAME_PATTERN),
    rev: z.number().int().nonnegative(),
    url: httpUrl.nullable(),
    apiUrl: httpUrl,
    metaUrl: httpUrl,
    openapiUrl: httpUrl.optional(),
    doctypes: z.array(z.string().regex(DOCTYPE_NAME_PATTERN)).max(10_000),
    integrity: z.string().regex(INTEGRITY_PATTERN).optional(),
    encryptionKeys: z.array(publishedKey).max(MAX_PUBLISHED_KEYS).optional(),
  })
  // A service publishes only keys named after itself: it cannot take in another service's requests.
  .refine(
    (m) => (m.encryptionKeys ?? []).every((k) => k.kid.startsWith(serviceKidPrefix(m.service))),
    'encryptionKeys: every kid names the publishing service',
  );

/** Parses a manifest read from the bus; null when it is not one. */
export function parseManifest(value: unknown): ServiceManifest | null {
  const result = serviceManifestSchema.safeParse(value);
  return result.success ? (result.data as ServiceManifest) : null;
}

/** True when two manifests describe the same service identically, ignoring `rev`. */
export function sameManifest(a: ServiceManifest, b: ServiceManifest): boolean {
  const { rev: _ra, ...restA } = a;
  const { rev: _rb, ...restB } = b;
  return stableJson(restA) === stableJson(restB);
}

function stableJson(value: Record<string, unknown>): string {
  return JSON.stringify(
    Object.keys(value)
      .sort()
      .map((k) => [k, value[k]]),
  );
}
