/**
 * The `__PLATFORM_CONFIG__` payload the backend injects into the Desk HTML
 * (docs/http-api.md#desk-configuration-payload). It tells the shell its environment before the bundle runs.
 * It is data from the page, so it is validated before use and reported as one coded error listing every
 * problem.
 */
import { PLATFORM_MODES, type PlatformConfigPayload, type PlatformMode } from '../contract/platform-config';
import { SdkError, type SdkFieldError } from './errors';

export type { PlatformMode };

/** The validated `window.__PLATFORM_CONFIG__`: the payload of the platform's contract. */
export type PlatformConfig = PlatformConfigPayload;

/** Where the config is read from: a window-like object. */
export interface PlatformConfigSource {
  __PLATFORM_CONFIG__?: unknown;
}

/**
 * Reads and validates `win.__PLATFORM_CONFIG__` (default: the global object). Throws `SdkError`
 * `platform_config_invalid` when it is missing or any field is invalid; the error's `fields` name them all.
 *
 * @example
 * const { gatewayUrl, coreServices } = readPlatformConfig();
 */
export function readPlatformConfig(
  win: PlatformConfigSource = globalThis as PlatformConfigSource,
): PlatformConfig {
  const raw = win.__PLATFORM_CONFIG__;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new SdkError('platform_config_invalid', '__PLATFORM_CONFIG__ is missing or not an object.');
  }
  const value = raw as Record<string, unknown>;
  const problems: SdkFieldError[] = [];
  const problem = (field: string, message: string) => problems.push({ field, code: 'invalid', message });

  if (!(PLATFORM_MODES as readonly unknown[]).includes(value.mode)) {
    problem('mode', `must be ${PLATFORM_MODES.map((m) => `"${m}"`).join(' or ')}`);
  }
  for (const key of ['gatewayUrl', 'deskBase', 'securityConfigUrl', 'version'] as const) {
    if (typeof value[key] !== 'string') problem(key, 'must be a string');
  }
  if (!Array.isArray(value.coreServices) || !value.coreServices.every((s) => typeof s === 'string')) {
    problem('coreServices', 'must be a list of service names');
  }
  if (problems.length > 0) {
    throw new SdkError(
      'platform_config_invalid',
      `__PLATFORM_CONFIG__ is invalid: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}.`,
      { fields: problems },
    );
  }
  return {
    mode: value.mode as PlatformMode,
    gatewayUrl: value.gatewayUrl as string,
    deskBase: value.deskBase as string,
    coreServices: [...(value.coreServices as string[])],
    securityConfigUrl: value.securityConfigUrl as string,
    version: value.version as string,
    ...remoteOverridesOf(value.remoteOverrides),
  };
}

/** The `remoteOverrides` field when well-formed; anything else means overrides are off. */
function remoteOverridesOf(raw: unknown): Pick<PlatformConfig, 'remoteOverrides'> {
  if (typeof raw !== 'object' || raw === null) return {};
  const { allowed, origins } = raw as { allowed?: unknown; origins?: unknown };
  if (typeof allowed !== 'boolean' || !Array.isArray(origins)) return {};
  return { remoteOverrides: { allowed, origins: origins.filter((o): o is string => typeof o === 'string') } };
}

/** The platform config when the page has a valid one, else `undefined` (for defaults that may fall back). */
export function tryReadPlatformConfig(
  win: PlatformConfigSource = globalThis as PlatformConfigSource,
): PlatformConfig | undefined {
  try {
    return readPlatformConfig(win);
  } catch {
    return undefined;
  }
}
