/**
 * The browser side of payload encryption: the security config (fetched once at boot, one shared in-flight
 * request), the JWKS public keys (imported with WebCrypto and cached by `kid` with what each body's JWE
 * reuses, with a max-age; a key whose `n` or `e` changed in the JWKS is imported again), and
 * `encryptPayload`. On an `unknown_key` answer the caller runs {@link SecurityClient.refreshKeys} once:
 * after a key rotation both the active `kid` (config) and the JWKS have changed.
 */
import {
  type FlaggedSchema,
  JOSE_CONTENT_TYPE,
  JSON_CONTENT_TYPE,
  requiresEncryption,
  SECURITY_CONFIG_PATH,
  type SecurityConfig,
  serviceKidPrefix,
} from '../../protocol';
import { isSdkError, SdkError } from '../errors';
import { tryReadPlatformConfig } from '../platform-config';
import type { JweRecipient } from './compact-jwe';
import { type EncryptedPayload, pathOf, serializeBody } from './encrypt-payload';
import { parseJwks, parseSecurityConfig } from './parse';

/**
 * The JWE code, loaded with the first key import: a Desk that only reads never needs it, so it stays off
 * the first screen (docs/performance.md#the-budget). The chunk is named `jose` for the budget's list of
 * deferred chunks.
 */
const jweCode = () => import(/* webpackChunkName: "jose" */ './compact-jwe');

/** A JWKS key as imported, with the public numbers it was imported from (to see it change under its kid). */
interface HeldKey {
  recipient: JweRecipient;
  n: string;
  e: string;
}

/** Options of {@link SecurityClient}; everything environmental is injectable. */
export interface SecurityClientOptions {
  /**
   * URL of the security config. Default: `__PLATFORM_CONFIG__.securityConfigUrl` when the page has one,
   * else {@link SECURITY_CONFIG_PATH} under `baseUrl`.
   */
  configUrl?: string;
  /** Base URL for relative paths (`configUrl`, the config's `jwks_uri`); default `''` (same origin). */
  baseUrl?: string;
  /** Fetch implementation; default the global `fetch`, looked up at call time. */
  fetch?: typeof globalThis.fetch;
  /** How long imported keys are trusted before the JWKS is fetched again; default 5 minutes. */
  keysMaxAgeMs?: number;
  /** This machine's clock; default `Date.now`. The JWE `iat` is stamped on the server's clock estimated from it. */
  now?: () => number;
}

/**
 * Security config, JWKS key cache and payload encryption.
 *
 * @example
 * const security = new SecurityClient({ configUrl: '/api/v1/security/config' });
 * await security.load(); // at boot
 * const { body, contentType } = await security.encryptPayload(data, '/api/resource/crm.Customer', 'POST', schema);
 */
export class SecurityClient {
  #options: SecurityClientOptions;
  #config: SecurityConfig | undefined;
  #configInflight: Promise<SecurityConfig> | undefined;
  /** Imported keys by kid, in JWKS order, each with the modulus and exponent it was imported from. */
  #keys = new Map<string, HeldKey>();
  #keysFetchedAt = Number.NEGATIVE_INFINITY;
  #keysInflight: Promise<void> | undefined;
  #refreshInflight: Promise<void> | undefined;
  /** The server's clock minus this machine's, learned from the `Date` of the config answer; 0 until then. */
  #clockOffsetMs = 0;

  constructor(options: SecurityClientOptions = {}) {
    this.#options = options;
  }

  /** Changes options; unspecified ones keep their value. Cached config and keys are kept. */
  configure(options: SecurityClientOptions): void {
    this.#options = { ...this.#options, ...options };
  }

  /** The loaded policy, or `undefined` before {@link load} succeeded. */
  get config(): SecurityConfig | undefined {
    return this.#config;
  }

  /**
   * The time on the server's clock as this client estimates it (epoch ms): this machine's clock corrected by
   * the offset learned from the `Date` header of the security config answer (docs/sdk.md#clocks), so a
   * machine whose clock is minutes off still stamps an `iat` the server accepts.
   */
  serverNow(): number {
    return this.#now() + this.#clockOffsetMs;
  }

  /** True once the policy is loaded. */
  get isLoaded(): boolean {
    return this.#config !== undefined;
  }

  /** True while the policy is being fetched. */
  get isLoading(): boolean {
    return this.#configInflight !== undefined;
  }

  /**
   * Fetches the security config once; concurrent callers share the request and later calls get the cached
   * value. A failure is `security_config_unavailable` and is not cached, so the next call tries again.
   */
  load(): Promise<SecurityConfig> {
    if (this.#config) return Promise.resolve(this.#config);
    this.#configInflight ??= this.#fetchConfig()
      .then((config) => {
        this.#config = config;
        return config;
      })
      .finally(() => {
        this.#configInflight = undefined;
      });
    return this.#configInflight;
  }

  /**
   * Refetches the config and the JWKS, once for all concurrent callers: what a client does after the server
   * answered `unknown_key` (the key it used was retired, docs/security.md#key-rotation-without-failures).
   */
  refreshKeys(): Promise<void> {
    this.#refreshInflight ??= (async () => {
      const config = await this.#fetchConfig();
      this.#config = config;
      this.#keysFetchedAt = Number.NEGATIVE_INFINITY;
      await this.#loadKeys(true);
    })().finally(() => {
      this.#refreshInflight = undefined;
    });
    return this.#refreshInflight;
  }

  /**
   * The imported public key for `kid` (default: the config's active `kid`), fetching the JWKS when the key is
   * not cached or the cache is older than `keysMaxAgeMs`. When the config's active kid is missing from a fresh
   * JWKS the config itself is stale (a rotation since boot): it is refetched once.
   */
  async getKey(kid?: string): Promise<JweRecipient> {
    let found = await this.#lookup(kid ?? (await this.load()).kid);
    if (!found && kid === undefined) {
      await this.refreshKeys();
      found = await this.#lookup(this.#config?.kid ?? '');
    }
    if (!found) {
      throw new SdkError('encryption_failed', 'The active encryption key is not published in the JWKS.');
    }
    return found;
  }

  async #lookup(requested: string): Promise<JweRecipient | undefined> {
    if (!this.#keysFresh() || (requested !== '' && !this.#keys.has(requested))) await this.#loadKeys(false);
    return this.#held(requested);
  }

  /** The cached key for `kid` (`''`: the JWKS's first encryption key, for a config without an active kid). */
  #held(kid: string): JweRecipient | undefined {
    return (kid === '' ? this.#keys.values().next().value : this.#keys.get(kid))?.recipient;
  }

  #keysFresh(): boolean {
    return this.#keysFetchedAt + (this.#options.keysMaxAgeMs ?? 300_000) > this.#now();
  }

  /** The first key of the JWKS whose kid names `service`, from the cache as it is. */
  #serviceKey(service: string): JweRecipient | undefined {
    const prefix = serviceKidPrefix(service);
    for (const [kid, held] of this.#keys) if (kid.startsWith(prefix)) return held.recipient;
    return undefined;
  }

  /**
   * {@link keyFor} without an async step, when the answer is in a fresh cache: what almost every body takes.
   * Undefined when a fetch may be needed.
   */
  #cachedKeyFor(config: SecurityConfig, service: string | undefined): JweRecipient | undefined {
    if (!this.#keysFresh()) return undefined;
    return (service ? this.#serviceKey(service) : undefined) ?? this.#held(config.kid);
  }

  /**
   * The key a body for `service` is encrypted to (docs/security.md#encrypted-to-the-owning-service): the
   * first key of the JWKS whose kid names the service (`svc:<service>:...`, its active one), which only
   * that service can open and the gateway forwards unopened; the gateway's active key where the service
   * publishes none (MONOLITH, or no owner known).
   */
  async keyFor(service?: string): Promise<JweRecipient> {
    if (service) {
      if (!this.#keysFresh()) await this.#loadKeys(false);
      const own = this.#serviceKey(service);
      if (own) return own;
    }
    return this.getKey();
  }

  /** Whether a body sent with `method` to `url` must be encrypted under the (loaded) policy. */
  async requiresEncryption(url: string, method: string, schema?: FlaggedSchema): Promise<boolean> {
    return requiresEncryption(await this.load(), method, pathOf(url), schema);
  }

  /**
   * `encryptPayload(body, url, method, schema?, service?)` (docs/sdk.md#payload-encryption-and-http): applies the mode table to decide, then returns the
   * JSON body or a compact JWE bound to `method` and the path of `url`, encrypted to the key of `service`
   * (the owner discovery resolved) when the JWKS has one, else to the gateway's ({@link keyFor}). A string
   * `body` is taken as JSON text.
   * Throws `security_config_unavailable` when the policy cannot be loaded and `encryption_failed` when
   * encryption is required but fails: it never falls back to plaintext.
   */
  async encryptPayload(
    body: unknown,
    url: string,
    method: string,
    schema?: FlaggedSchema,
    service?: string,
  ): Promise<EncryptedPayload> {
    const config = this.#config ?? (await this.load());
    const plaintext = serializeBody(body);
    const path = pathOf(url);
    if (!requiresEncryption(config, method, path, schema)) {
      return { body: plaintext, contentType: JSON_CONTENT_TYPE };
    }
    try {
      const recipient = this.#cachedKeyFor(config, service) ?? (await this.keyFor(service));
      const binding = { htm: method.toUpperCase(), htu: path };
      const { encryptCompact } = await jweCode();
      const jwe = await encryptCompact(recipient, plaintext, binding, this.serverNow());
      return { body: jwe, contentType: JOSE_CONTENT_TYPE };
    } catch (err) {
      if (isSdkError(err) && err.code === 'encryption_failed') throw err;
      throw new SdkError('encryption_failed', 'The request body could not be encrypted.', { cause: err });
    }
  }

  /** Forgets the config and every key (tests, logout). */
  reset(): void {
    this.#config = undefined;
    this.#configInflight = undefined;
    this.#keys = new Map();
    this.#keysFetchedAt = Number.NEGATIVE_INFINITY;
    this.#keysInflight = undefined;
    this.#refreshInflight = undefined;
    this.#clockOffsetMs = 0;
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  #fetch(url: string): Promise<Response> {
    const doFetch = this.#options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    return doFetch(url, { credentials: 'include', headers: { Accept: 'application/json' } });
  }

  #resolve(path: string): string {
    if (/^[a-z][a-z0-9+.-]*:/i.test(path)) return path;
    return `${(this.#options.baseUrl ?? '').replace(/\/+$/, '')}${path}`;
  }

  async #fetchConfig(): Promise<SecurityConfig> {
    const url = this.#resolve(
      this.#options.configUrl ?? tryReadPlatformConfig()?.securityConfigUrl ?? SECURITY_CONFIG_PATH,
    );
    try {
      const sentAt = this.#now();
      const response = await this.#fetch(url);
      if (!response.ok) throw new Error(`status ${response.status}`);
      this.#learnClock(response.headers.get('date'), sentAt, this.#now());
      return parseSecurityConfig(await response.json());
    } catch (err) {
      throw new SdkError('security_config_unavailable', 'The security config could not be loaded.', {
        cause: err,
      });
    }
  }

  /**
   * Learns the server's clock from an answer's `Date` (RFC 9110 section 6.6.1): whole seconds, stamped while
   * the answer was made, so the server's time is taken as that second's middle at the middle of the exchange.
   * The estimate is within about a second plus the round trip, well inside the server's allowed skew. An
   * answer without a usable `Date` (a proxy that drops it, a mock) leaves the last estimate.
   */
  #learnClock(date: string | null, sentAt: number, receivedAt: number): void {
    const serverMs = date === null ? Number.NaN : Date.parse(date);
    if (!Number.isFinite(serverMs)) return;
    this.#clockOffsetMs = serverMs + 500 - (sentAt + receivedAt) / 2;
  }

  /** Fetches and imports the JWKS; `force` skips sharing a request started before a refresh. */
  #loadKeys(force: boolean): Promise<void> {
    if (this.#keysInflight && !force) return this.#keysInflight;
    const run = (async () => {
      const config = await this.load();
      let jwks: ReturnType<typeof parseJwks>;
      try {
        const response = await this.#fetch(this.#resolve(config.jwks_uri));
        if (!response.ok) throw new Error(`status ${response.status}`);
        jwks = parseJwks(await response.json());
      } catch (err) {
        throw new SdkError('encryption_failed', 'The encryption keys (JWKS) could not be loaded.', {
          cause: err,
        });
      }
      // A key already imported is reused: a refetch imports only the keys that are new, or whose material
      // changed under the same kid, since. Only the keys of this JWKS are kept.
      const entries = await Promise.all(
        jwks.map(async (jwk): Promise<[string, HeldKey]> => {
          const held = this.#keys.get(jwk.kid);
          if (held && held.n === jwk.n && held.e === jwk.e) return [jwk.kid, held];
          const { importRecipient } = await jweCode();
          return [jwk.kid, { recipient: await importRecipient(jwk), n: jwk.n, e: jwk.e }];
        }),
      );
      this.#keys = new Map(entries);
      this.#keysFetchedAt = this.#now();
    })().finally(() => {
      if (this.#keysInflight === run) this.#keysInflight = undefined;
    });
    this.#keysInflight = run;
    return run;
  }
}
