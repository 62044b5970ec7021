import { z } from 'zod';
import { PLATFORM_MODES, type PlatformMode } from '../../src/contract/platform-config';
import { ENCRYPTION_MODES, JWKS_PATH } from '../../src/protocol';
import { APP_NAME_SPEC, isAppPath } from '../apps/app-spec';

export type { PlatformMode };

const port = z.number().int().min(0).max(65535);
const positiveInt = z.number().int().positive();
const routePattern = z.string().startsWith('/', 'a route pattern starts with "/"');

/**
 * The `[tool.platform]` table of platform.toml, in its TOML spelling (snake_case keys).
 * Every key has a default so an empty file is a valid configuration; unknown keys are errors
 * so a typo never silently falls back to a default.
 */
export const platformTomlSchema = z
  .object({
    mode: z.enum(PLATFORM_MODES).default('monolith'),
    /**
     * Installed apps (MONOLITH): names of apps under backend/apps or paths to app folders; or the app this
     * process serves (`m serve --app`).
     */
    apps: z
      .array(
        z
          .string()
          .min(1)
          .refine((v) => APP_NAME_SPEC.test(v) || isAppPath(v), 'an app name or a path to an app folder'),
      )
      .default(['crm', 'stock', 'support']),
    server: z
      .object({
        host: z.string().min(1).default('127.0.0.1'),
        port: port.default(8000),
        /** Public base URL used in manifests; defaults to http://<host>:<port>. */
        public_url: z.url().optional(),
        data_dir: z.string().min(1).default('.platform'),
        /** A PostgreSQL URL; when absent, PGlite under data_dir. */
        database_url: z.string().optional(),
        /**
         * Compile the embedded database's WASM with V8's optimising tier too (CPU-bound workloads); off, the
         * baseline compiler alone keeps about 40 MB less resident code (docs/performance.md#memory).
         */
        pglite_optimize: z.boolean().default(false),
        /**
         * The embedded database answers a write before the WAL holding it is synced to disk: faster, and a power
         * loss or kernel crash loses the writes acknowledged since the last writeback (docs/operators.md#durability).
         */
        risk_losing_writes_on_power_loss: z.boolean().default(false),
        /**
         * Send `Server-Timing` (each stage of a request) to every System Manager's request, not only to those
         * asking with `X-Platform-Timing: 1` (docs/performance.md#where-a-request-spends-its-time).
         */
        server_timing: z.boolean().default(false),
        /** A database statement at least this slow counts as slow in `/metrics` (docs/operators.md#metrics). */
        slow_statement_ms: positiveInt.default(100),
        /**
         * `debug` adds a line per request a MACROSERVICE gateway forwards (method, path, service, status, what
         * the body was and its size; never a body, docs/operators.md#settings). Default `info`.
         */
        log_level: z.enum(['info', 'debug']).default('info'),
        /** Largest request body of a request that presents a credential (cookie or `Authorization`). */
        max_body_bytes: positiveInt.default(1_048_576),
        /** Largest request body of a request without any credential (sign-in, public routes). */
        max_anonymous_body_bytes: positiveInt.default(65_536),
        /**
         * Host names (optionally `name:port`) this server answers to; any other `Host` is 421 `invalid_host`.
         * The `public_url` host and the loopback names are always allowed.
         */
        allowed_hosts: z.array(z.string().min(1)).default([]),
        /**
         * Peers (reverse proxies, load balancers) whose `X-Forwarded-For` names the client and whose
         * `X-Forwarded-Proto` says whether the browser used https; empty means the socket address is the client.
         */
        trusted_proxies: z.array(z.string()).default([]),
        shutdown_timeout_ms: positiveInt.default(10_000),
        /** How long a request body may stop arriving before the request is cut with 408 `request_timeout`. */
        body_idle_timeout_ms: positiveInt.default(30_000),
      })
      .strict()
      .prefault({}),
    desk: z
      .object({
        core_services: z.array(z.string()).default(['crm', 'stock', 'support']),
        mfe_proxy_enabled: z.boolean().default(false),
        upstream_timeout_ms: positiveInt.default(5_000),
        /**
         * Lets a developer point a service's remote at their own dev server from the Desk. Unset: on when the
         * server binds a loopback address (a developer's machine), off otherwise.
         */
        allow_remote_overrides: z.boolean().optional(),
        /** Origins an override may use besides http://localhost and http://127.0.0.1. */
        override_origins: z.array(z.url()).default([]),
      })
      .strict()
      .prefault({}),
    gateway: z
      .object({
        max_resources: positiveInt.default(500),
        max_body_bytes: positiveInt.default(65_536),
      })
      .strict()
      .prefault({}),
    attachments: z
      .object({
        /**
         * Largest file attached to a record (docs/operators.md#attachments); an upload of that size passes
         * the general body limit on its route only.
         */
        max_bytes: positiveInt.default(10_485_760),
      })
      .strict()
      .prefault({}),
    releases: z
      .object({
        /**
         * Published releases of a UI remote kept per service, besides any live, canary or pinned one
         * (docs/operators.md#releases).
         */
        keep: positiveInt.default(10),
        /**
         * A publication not finished this long after it started (its files never all uploaded) loses its
         * record and the files it has (docs/operators.md#releases).
         */
        staged_max_age_hours: positiveInt.default(24),
      })
      .strict()
      .prefault({}),
    security: z
      .object({
        // `trusted_proxies` here is the older spelling of `server.trusted_proxies`: loadConfig moves it there
        // (with a warning) before validation, so it is not a key of this table.
        payload_encryption: z
          .object({
            mode: z.enum(ENCRYPTION_MODES).default('metadata'),
            jwks_uri: routePattern.default(JWKS_PATH),
            routes: z.array(routePattern).default([]),
            /** How long a retired key keeps decrypting; must exceed the JWKS cache max-age. */
            key_grace_seconds: positiveInt.default(86_400),
            jwks_max_age_seconds: positiveInt.default(300),
            max_jwe_bytes: positiveInt.default(1_400_000),
            /** A JWE whose `iat` is older than this (or a `jti` seen within it) is refused as replayed. */
            replay_window_seconds: positiveInt.default(300),
            /** How far a client's clock may run ahead of or behind the server's. */
            clock_skew_seconds: z.number().int().min(0).default(60),
          })
          .strict()
          .prefault({}),
        rate_limit: z
          .object({
            enabled: z.boolean().default(true),
            window_seconds: positiveInt.default(60),
            max_requests: positiveInt.default(6_000),
          })
          .strict()
          .prefault({}),
        csrf: z
          .object({
            trusted_origins: z.array(z.url()).default([]),
          })
          .strict()
          .prefault({}),
        idempotency: z
          .object({
            ttl_seconds: positiveInt.default(86_400),
          })
          .strict()
          .prefault({}),
        session: z
          .object({
            ttl_seconds: positiveInt.default(86_400),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    nats: z
      .object({
        url: z.string().optional(),
        bucket: z
          .string()
          .regex(/^[A-Za-z0-9_-]+$/)
          .default('platform_manifests'),
        ttl_seconds: positiveInt.default(15),
        heartbeat_seconds: positiveInt.default(5),
        /** Legacy mode: the `infra.schema.discovery` broadcast is a source of truth too. */
        bus_source_of_truth: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
  })
  .strict();

/** The validated `[tool.platform]` table. */
export type PlatformConfig = z.output<typeof platformTomlSchema>;
