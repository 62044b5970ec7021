/**
 * `__PLATFORM_CONFIG__` (docs/http-api.md#desk-configuration-payload): what the backend injects into the Desk
 * HTML and the shell reads before its bundle runs. Nothing secret goes in here: every script on the page can
 * read it.
 */

/** The deployment modes of the platform: one process (the embedded default) or services behind gateways. */
export const PLATFORM_MODES = ['monolith', 'macroservice'] as const;

/** Deployment mode of the platform. */
export type PlatformMode = (typeof PLATFORM_MODES)[number];

/** The `__PLATFORM_CONFIG__` payload. */
export interface PlatformConfigPayload {
  mode: PlatformMode;
  /** Base URL of the gateway (`''` or an origin); discovery lives under `<gatewayUrl>/api/gateway/`. */
  gatewayUrl: string;
  /** Path the Desk is served under, e.g. `/desk/`. */
  deskBase: string;
  /** Services the shell prewarms at boot (`desk.core_services`). */
  coreServices: string[];
  /** Full URL of `GET /api/v1/security/config`. */
  securityConfigUrl: string;
  /** The platform version (package.json). */
  version: string;
  /** Whether developers may override a service's remote, and the origins allowed besides localhost. */
  remoteOverrides?: { allowed: boolean; origins: string[] };
}
