import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import type { z } from 'zod';
import { PlatformError } from '../http/errors';
import { type PlatformConfig, platformTomlSchema } from './schema';

/** Where a setting may be overridden from the environment: env name -> dotted TOML path and its parser. */
const ENV_OVERRIDES: ReadonlyArray<readonly [string, string, (raw: string) => unknown]> = [
  ['PLATFORM_MODE', 'mode', (v) => v.toLowerCase()],
  [
    'PLATFORM_APPS',
    'apps',
    (v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
  ],
  ['HOST', 'server.host', String],
  ['PORT', 'server.port', (v) => (/^\d+$/.test(v) ? Number(v) : v)],
  ['PLATFORM_PUBLIC_URL', 'server.public_url', String],
  ['PLATFORM_DATA_DIR', 'server.data_dir', String],
  ['PLATFORM_DATABASE_URL', 'server.database_url', String],
  ['PLATFORM_PGLITE_OPTIMIZE', 'server.pglite_optimize', parseBool],
  ['PLATFORM_LOG_LEVEL', 'server.log_level', (v) => v.toLowerCase()],
  ['PLATFORM_MFE_PROXY_ENABLED', 'desk.mfe_proxy_enabled', parseBool],
  ['PLATFORM_UPSTREAM_TIMEOUT_MS', 'desk.upstream_timeout_ms', (v) => (/^\d+$/.test(v) ? Number(v) : v)],
  [
    'PLATFORM_CORE_SERVICES',
    'desk.core_services',
    (v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
  ],
  ['PLATFORM_ENCRYPTION_MODE', 'security.payload_encryption.mode', (v) => v.toLowerCase()],
  ['PLATFORM_RATE_LIMIT_MAX', 'security.rate_limit.max_requests', (v) => (/^\d+$/.test(v) ? Number(v) : v)],
  ['PLATFORM_NATS_URL', 'nats.url', String],
  ['PLATFORM_BUS_SOURCE_OF_TRUTH', 'nats.bus_source_of_truth', parseBool],
];

/** The environment variables that override platform.toml, for documentation and `m serve --help`. */
export const CONFIG_ENV_VARS = ENV_OVERRIDES.map(([env, path]) => ({ env, key: `tool.platform.${path}` }));

/**
 * Environment variables the server reads besides the platform.toml overrides (secrets and tuning that have
 * no key in the file), with what each is for; `m serve --help` lists them next to {@link CONFIG_ENV_VARS}.
 */
export const OTHER_ENV_VARS: ReadonlyArray<{ env: string; use: string }> = [
  { env: 'PLATFORM_ADMIN_PASSWORD', use: 'password of Administrator, set when the user is first created' },
  { env: 'PLATFORM_INTERNAL_SECRET', use: 'MACROSERVICE: secret shared by the gateway and its services' },
  {
    env: 'PLATFORM_KEY_ENCRYPTION_KEY',
    use: 'MACROSERVICE gateways: key wrapping the key ring they share in NATS KV',
  },
  { env: 'PLATFORM_KEY_ENCRYPTION_KEY_FILE', use: 'MACROSERVICE gateways: file holding that key instead' },
  {
    env: 'PLATFORM_RECORDS_KEY_ENCRYPTION_KEY',
    use: 'key wrapping the data keys of personal data at rest (default: <data_dir>/keys/records.kek)',
  },
  { env: 'PLATFORM_RECORDS_KEY_ENCRYPTION_KEY_FILE', use: 'file holding that key instead' },
  {
    env: 'PLATFORM_RECORDS_PREVIOUS_KEY_ENCRYPTION_KEY',
    use: 'the key it replaced, while `m keys rewrap` runs (or _FILE)',
  },
  { env: 'UV_THREADPOOL_SIZE', use: 'threads for decryption and password hashing (Node.js, default 4)' },
  { env: 'PLATFORM_GROW_YOUNG_GENERATION', use: "1: keep V8's default young-generation growth" },
  {
    env: 'PLATFORM_SERVE_FROM_SOURCE',
    use: '1: run from the TypeScript sources even when the bundle is current',
  },
];

function parseBool(raw: string): unknown {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
  return raw; // left as a string so validation names the key and what is allowed
}

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts.at(-1)!] = value;
}

/** Where each dotted path's value came from, the last writer winning: a flag, an environment variable. */
type Sources = Map<string, string>;

/**
 * Names the source of the value at `path`: the flag or environment variable that set it (or one of its
 * parents), else the file. Values themselves are never shown (an environment variable may hold a secret).
 */
function sourceOf(path: string[], sources: Sources, file: string): string {
  for (let n = path.length; n > 0; n--) {
    const source = sources.get(path.slice(0, n).join('.'));
    if (source) return ` (set by ${source})`;
  }
  return existsSync(file) ? ` (set in ${file})` : '';
}

function describeIssue(issue: z.core.$ZodIssue, sources: Sources, file: string): string {
  const key = ['tool', 'platform', ...issue.path.map(String)].join('.');
  const where = sourceOf(issue.path.map(String), sources, file);
  switch (issue.code) {
    case 'invalid_value':
      return `${key}: must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}${where}`;
    case 'unrecognized_keys':
      return `${key}: unknown key(s) ${issue.keys.join(', ')}${where}`;
    default:
      return `${key}: ${issue.message}${where}`;
  }
}

/** Options of {@link loadConfig}: everything environmental is injectable for tests. */
export interface LoadConfigOptions {
  /** Path of platform.toml; default `./platform.toml` (a missing default file means all defaults). */
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Overrides applied last (CLI flags), as dotted TOML paths, e.g. `{ 'server.port': 9000 }`. */
  overrides?: Record<string, unknown>;
  /** What set each override, for error messages, e.g. `{ 'server.port': 'flag --port' }`; default "override". */
  overrideSources?: Record<string, string>;
  /** Receives one line per deprecated setting found (an older spelling still accepted); default stderr. */
  warn?: (message: string) => void;
}

/** Older spellings still accepted: the deprecated dotted path and the one it is read as. */
const RENAMED: ReadonlyArray<readonly [old: string, current: string]> = [
  ['security.trusted_proxies', 'server.trusted_proxies'],
];

function hasPath(table: Record<string, unknown>, dotted: string): boolean {
  let node: unknown = table;
  for (const part of dotted.split('.')) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, part)) return false;
    node = (node as Record<string, unknown>)[part];
  }
  return node !== undefined;
}

function takePath(table: Record<string, unknown>, dotted: string): unknown {
  const parts = dotted.split('.');
  let node = table;
  for (const part of parts.slice(0, -1)) node = node[part] as Record<string, unknown>;
  const value = node[parts.at(-1)!];
  delete node[parts.at(-1)!];
  return value;
}

/**
 * Moves each older spelling of {@link RENAMED} to its current key before validation (so a bad value is
 * reported under the key that is read), with one warning line naming where it was set. Both spellings at
 * once is an error: which one was meant cannot be told.
 */
function moveRenamed(
  table: Record<string, unknown>,
  sources: Sources,
  file: string,
  warn: (m: string) => void,
) {
  for (const [old, current] of RENAMED) {
    if (!hasPath(table, old)) continue;
    const where = sourceOf(old.split('.'), sources, file);
    if (hasPath(table, current)) {
      throw new PlatformError(
        'config_invalid',
        `invalid configuration:\n  tool.platform.${old}${where} and tool.platform.${current}${sourceOf(current.split('.'), sources, file)} are both set: keep tool.platform.${current} only`,
      );
    }
    setPath(table, current, takePath(table, old));
    // A bad value is then reported under the current key, naming what set it in the older spelling.
    sources.set(current, sources.get(old) ?? `${file}, key tool.platform.${old}`);
    warn(`tool.platform.${old} is deprecated${where}; rename it to tool.platform.${current}`);
  }
}

/**
 * Reads platform.toml's `[tool.platform]` table, applies environment overrides and CLI overrides,
 * and validates the result. Any problem throws a `PlatformError` with code `config_invalid` whose
 * message lists every bad key with what is allowed.
 */
export function loadConfig(options: LoadConfigOptions = {}): PlatformConfig {
  const env = options.env ?? process.env;
  const explicit = options.file !== undefined;
  const file = resolve(options.file ?? 'platform.toml');
  let table: Record<string, unknown> = {};
  if (existsSync(file)) {
    let doc: Record<string, unknown>;
    try {
      doc = parseToml(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (cause) {
      throw new PlatformError('config_invalid', `${file}: ${(cause as Error).message}`, { cause });
    }
    const tool = doc.tool as Record<string, unknown> | undefined;
    table = structuredClone((tool?.platform as Record<string, unknown> | undefined) ?? {});
  } else if (explicit) {
    throw new PlatformError('config_invalid', `${file}: file not found`);
  }
  const sources: Sources = new Map();
  for (const [name, path, parse] of ENV_OVERRIDES) {
    const raw = env[name];
    if (raw !== undefined && raw !== '') {
      setPath(table, path, parse(raw));
      sources.set(path, `environment variable ${name}`);
    }
  }
  for (const [path, value] of Object.entries(options.overrides ?? {})) {
    if (value !== undefined) {
      setPath(table, path, value);
      sources.set(path, options.overrideSources?.[path] ?? 'override');
    }
  }
  moveRenamed(table, sources, file, options.warn ?? ((message) => console.warn(`warning: ${message}`)));
  const result = platformTomlSchema.safeParse(table);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => describeIssue(issue, sources, file));
    throw new PlatformError('config_invalid', `invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return result.data;
}
