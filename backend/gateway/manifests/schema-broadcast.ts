import { z } from 'zod';
import { DOCTYPE_NAME_PATTERN } from '../../../src/contract/doctype';
import type { ServiceManifest } from '../../../src/protocol';
import { parseManifest, SERVICE_NAME_PATTERN } from './manifest-schema';

/**
 * The legacy startup broadcast (docs/operators.md#bus-subjects-and-kv-layout), published on
 * `infra.schema.discovery`: `{ type: "schema.broadcast", service, manifest, doctypes, rev, ts }`. `manifest`
 * holds the service's DiscoveryUnit (`url`, `apiUrl`, `metaUrl`, `openapiUrl?`); `doctypes` its full DocType
 * names; `ts` the publication time in epoch milliseconds.
 */
export interface SchemaBroadcast {
  type: 'schema.broadcast';
  service: string;
  manifest: { url: string | null; apiUrl: string; metaUrl: string; openapiUrl?: string };
  doctypes: string[];
  rev: number;
  ts: number;
}

/** Builds the broadcast event for a manifest. */
export function schemaBroadcast(manifest: ServiceManifest, now = Date.now()): SchemaBroadcast {
  const unit: SchemaBroadcast['manifest'] = {
    url: manifest.url,
    apiUrl: manifest.apiUrl,
    metaUrl: manifest.metaUrl,
  };
  if (manifest.openapiUrl) unit.openapiUrl = manifest.openapiUrl;
  return {
    type: 'schema.broadcast',
    service: manifest.service,
    manifest: unit,
    doctypes: manifest.doctypes,
    rev: manifest.rev,
    ts: now,
  };
}

// Older publishers send DocTypes as names or as schema objects with a `name`; both are accepted.
const broadcastShape = z.object({
  type: z.literal('schema.broadcast'),
  service: z.string().regex(SERVICE_NAME_PATTERN),
  manifest: z.record(z.string(), z.unknown()),
  doctypes: z
    .array(z.union([z.string(), z.object({ name: z.string() }).loose()]))
    .max(10_000)
    .default([]),
  rev: z.number().int().nonnegative().default(0),
  ts: z.number().optional(),
});

/**
 * Turns a received broadcast into a manifest; null when the message is not a valid `schema.broadcast`
 * (other event types on the subject are ignored, as are malformed ones).
 */
export function manifestFromBroadcast(data: unknown): ServiceManifest | null {
  const parsed = broadcastShape.safeParse(data);
  if (!parsed.success) return null;
  const { service, manifest, rev } = parsed.data;
  const doctypes = parsed.data.doctypes
    .map((d) => (typeof d === 'string' ? d : d.name))
    .filter((d) => DOCTYPE_NAME_PATTERN.test(d));
  return parseManifest({ url: null, ...manifest, service, rev, doctypes });
}
