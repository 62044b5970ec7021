import type { PlatformConfigPayload } from '../../src/contract/platform-config';
import type { PlatformConfig } from '../config/schema';

/**
 * `__PLATFORM_CONFIG__` (docs/http-api.md#desk-configuration-payload), typed by the platform's contract.
 * Nothing secret goes in here (docs/security.md#injected-config-is-data): every script on the page reads it.
 */
export type { PlatformConfigPayload };

/** True for an address only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);
}

/** Mount path of the Desk. */
export const DESK_BASE = '/desk/';

/**
 * The payload for one request: the gateway is `server.public_url` when configured (behind a proxy the
 * request's own URL is the internal one), else the origin the browser used.
 */
export function platformConfigPayload(
  config: PlatformConfig,
  requestUrl: string,
  version: string,
): PlatformConfigPayload {
  const gatewayUrl = (config.server.public_url ?? new URL(requestUrl).origin).replace(/\/+$/, '');
  return {
    mode: config.mode,
    gatewayUrl,
    deskBase: DESK_BASE,
    coreServices: [...config.desk.core_services],
    securityConfigUrl: `${gatewayUrl}/api/v1/security/config`,
    version,
    remoteOverrides: {
      allowed: config.desk.allow_remote_overrides ?? isLoopbackHost(config.server.host),
      origins: [...config.desk.override_origins],
    },
  };
}

const ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * JSON safe to embed in an HTML `<script>` element (docs/security.md#injected-config-is-data): `<`, `>` and
 * `&` become `\u003c`, `\u003e`, `\u0026`, so no value can close the element or open a comment; U+2028 and
 * U+2029 are escaped too, as older JavaScript parsers treat them as line ends. `JSON.parse` of the result
 * gives the value back.
 */
export function serializeForHtml(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (ch) => ESCAPES[ch]!);
}

/**
 * The markup injected into the shell page: the payload as a JSON data block, then a tiny script exposing it
 * as `window.__PLATFORM_CONFIG__` before any other script runs.
 */
export function platformConfigMarkup(payload: PlatformConfigPayload): string {
  return (
    `<script type="application/json" id="__PLATFORM_CONFIG__">${serializeForHtml(payload)}</script>` +
    `<script>window.__PLATFORM_CONFIG__=JSON.parse(document.getElementById('__PLATFORM_CONFIG__').textContent);</script>`
  );
}
