import { createHash } from 'node:crypto';
import type { ServiceManifest } from '../gateway/service-directory';

/** Origins of every URL a manifest names (remote entry, API, metadata), skipping anything unparsable. */
function manifestOrigins(manifests: readonly ServiceManifest[]): string[] {
  const origins = new Set<string>();
  for (const m of manifests) {
    for (const url of [m.url, m.apiUrl, m.metaUrl]) {
      if (!url) continue;
      try {
        const { origin, protocol } = new URL(url);
        if (protocol === 'http:' || protocol === 'https:') origins.add(origin);
      } catch {
        // a relative or broken URL adds no origin
      }
    }
  }
  return [...origins].sort();
}

/** `'sha256-…'` sources for every inline `<script>` (one without `src`) of an HTML page. */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    const attributes = match[1] ?? '';
    if (/\bsrc\s*=/i.test(attributes) || /type\s*=\s*["']?application\/json/i.test(attributes)) continue;
    hashes.push(
      `'sha256-${createHash('sha256')
        .update(match[2] ?? '')
        .digest('base64')}'`,
    );
  }
  return hashes;
}

/**
 * The Content-Security-Policy of the Desk page (docs/security.md#desk-page-headers):
 * scripts only from this origin, the remotes' origins of the directory and the page's own inline scripts (by
 * hash); connections to this origin, the gateway and the remotes; no plugins; `frame-ancestors 'none'` so no
 * other site can frame the Desk (clickjacking). Styles may be inline (components set style attributes).
 * Where remote overrides are allowed (docs/mfe-teams.md#working-against-a-running-desk), a developer's dev
 * server on localhost, 127.0.0.1 or a configured override origin may serve scripts and hot updates too.
 */
export function deskContentSecurityPolicy(
  html: string,
  gatewayUrl: string,
  manifests: readonly ServiceManifest[],
  overrides?: { allowed: boolean; origins: readonly string[] },
): string {
  const devServers = overrides?.allowed
    ? ['http://localhost:*', 'http://127.0.0.1:*', ...overrides.origins]
    : [];
  const hotUpdates = overrides?.allowed ? ['ws://localhost:*', 'ws://127.0.0.1:*'] : [];
  const remotes = [...manifestOrigins(manifests), ...devServers];
  let gateway: string[] = [];
  try {
    gateway = [new URL(gatewayUrl).origin];
  } catch {
    // no separate gateway origin
  }
  const self = ["'self'", ...remotes];
  const connect = [...new Set(["'self'", ...gateway, ...remotes, ...hotUpdates])];
  return [
    "default-src 'self'",
    `script-src ${[...self, ...inlineScriptHashes(html)].join(' ')}`,
    `style-src ${[...self, "'unsafe-inline'"].join(' ')}`,
    `img-src ${[...self, 'data:', 'blob:'].join(' ')}`,
    `font-src ${[...self, 'data:'].join(' ')}`,
    `connect-src ${connect.join(' ')}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The headers of the Desk page besides the CSP: no framing (older browsers), no sniffing, no referrer leaks. */
export const DESK_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};
