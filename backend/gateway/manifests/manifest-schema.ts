import { z } from 'zod';
import { DOCTYPE_NAME_PATTERN } from '../../../src/contract/doctype';
import type { ServiceManifest } from '../../../src/protocol';
import { INTEGRITY_PATTERN } from '../../apps/remote-integrity';

/** Pattern of a service name (the same as an app name). */
export const SERVICE_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

const httpUrl = z
  .string()
  .max(2048)
  .refine((v) => /^https?:\/\//.test(v) && URL.canParse(v), 'an absolute http(s) URL');

/**
 * A manifest as it travels on the bus (a KV value or inside a broadcast). Everything on the bus is
 * validated before a gateway believes it: a malformed manifest is ignored (and logged), never served.
 */
export const serviceManifestSchema = z.object({
  service: z.string().regex(SERVICE_NAME_PATTERN),
  rev: z.number().int().nonnegative(),
  url: httpUrl.nullable(),
  apiUrl: httpUrl,
  metaUrl: httpUrl,
  openapiUrl: httpUrl.optional(),
  doctypes: z.array(z.string().regex(DOCTYPE_NAME_PATTERN)).max(10_000),
  integrity: z.string().regex(INTEGRITY_PATTERN).optional(),
});

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
