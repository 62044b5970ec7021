/**
 * Remote overrides for local development: a developer points one service's UI remote at their own dev
 * server (`?override=<service>=<url>` once, or the Desk's developer details), kept in `localStorage` until
 * reset. Only when the Desk allows it (`desk.allow_remote_overrides`), and only to `http://localhost`,
 * `http://127.0.0.1` (any port) or an origin listed in `desk.override_origins`: an override runs that code
 * with the user's session, so it must never come from an arbitrary site.
 */

/** The storage key of the overrides (service -> entry URL). */
export const OVERRIDES_STORAGE_KEY = 'desk.remote-overrides';

/** The query parameter that sets an override. */
export const OVERRIDE_PARAM = 'override';

/** What the Desk allows (from `__PLATFORM_CONFIG__.remoteOverrides`). */
export interface OverridePolicy {
  allowed: boolean;
  /** Extra origins besides localhost and 127.0.0.1, e.g. `https://dev.example.com`. */
  origins: string[];
}

/** The slice of `Storage` used. */
export type OverrideStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

const SERVICE = /^[a-z][a-z0-9_]{0,63}$/;

/** True when `url` is an http(s) URL on an origin overrides may use under `policy`. */
export function isAllowedOverrideUrl(url: string, policy: Pick<OverridePolicy, 'origins'>): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.username || parsed.password) return false;
  if (parsed.protocol === 'http:' && (parsed.hostname === 'localhost' || parsed.hostname === '127.0.0.1')) {
    return true;
  }
  return policy.origins.some((origin) => {
    try {
      return new URL(origin).origin === parsed.origin;
    } catch {
      return false;
    }
  });
}

/** Parses `?override=<service>=<url>` values (repeatable); malformed ones are returned as refused. */
export function parseOverrideParams(search: string): Array<{ service: string; url: string }> {
  return new URLSearchParams(search).getAll(OVERRIDE_PARAM).map((value) => {
    const at = value.indexOf('=');
    return at < 0 ? { service: value, url: '' } : { service: value.slice(0, at), url: value.slice(at + 1) };
  });
}

/** The outcome of setting an override. */
export type OverrideResult =
  | { ok: true }
  | { ok: false; reason: 'not_allowed' | 'invalid_service' | 'invalid_origin' };

/** The overrides in effect: read and written through `storage`, checked against `policy`. */
export class RemoteOverrides {
  readonly #policy: OverridePolicy;
  readonly #storage: OverrideStorage | undefined;

  constructor(policy: OverridePolicy, storage?: OverrideStorage) {
    this.#policy = policy;
    this.#storage = storage;
  }

  /** Whether this Desk accepts overrides at all. */
  get allowed(): boolean {
    return this.#policy.allowed;
  }

  /** Service -> entry URL, keeping only entries the policy still allows (a stale one is ignored). */
  list(): Record<string, string> {
    if (!this.#policy.allowed) return {};
    let stored: unknown;
    try {
      stored = JSON.parse(this.#storage?.getItem(OVERRIDES_STORAGE_KEY) ?? '{}');
    } catch {
      return {};
    }
    if (typeof stored !== 'object' || stored === null) return {};
    return Object.fromEntries(
      Object.entries(stored as Record<string, unknown>).filter(
        ([service, url]) =>
          SERVICE.test(service) && typeof url === 'string' && isAllowedOverrideUrl(url, this.#policy),
      ),
    ) as Record<string, string>;
  }

  /** Points `service`'s remote at `url`. */
  set(service: string, url: string): OverrideResult {
    if (!this.#policy.allowed) return { ok: false, reason: 'not_allowed' };
    if (!SERVICE.test(service)) return { ok: false, reason: 'invalid_service' };
    if (!isAllowedOverrideUrl(url, this.#policy)) return { ok: false, reason: 'invalid_origin' };
    this.#storage?.setItem(OVERRIDES_STORAGE_KEY, JSON.stringify({ ...this.list(), [service]: url }));
    return { ok: true };
  }

  /** Removes `service`'s override (every override when `service` is undefined). */
  reset(service?: string): void {
    if (service === undefined) {
      this.#storage?.removeItem(OVERRIDES_STORAGE_KEY);
      return;
    }
    const { [service]: _removed, ...rest } = this.list();
    this.#storage?.setItem(OVERRIDES_STORAGE_KEY, JSON.stringify(rest));
  }

  /**
   * Applies the `?override=` parameters of `search` and returns the refused ones (with the reason) and the
   * search string without them, so the address bar does not keep re-applying them.
   */
  capture(search: string): {
    refused: Array<{ service: string; url: string; reason: string }>;
    rest: string;
  } {
    const refused: Array<{ service: string; url: string; reason: string }> = [];
    for (const { service, url } of parseOverrideParams(search)) {
      const result = this.set(service, url);
      if (!result.ok) refused.push({ service, url, reason: result.reason });
    }
    const params = new URLSearchParams(search);
    params.delete(OVERRIDE_PARAM);
    const rest = params.toString();
    return { refused, rest: rest ? `?${rest}` : '' };
  }

  /**
   * The entry to load for `service`: its override (without an integrity hash: a dev server's build is not
   * the published one), else the manifest's own.
   */
  apply<M extends { url: string | null; integrity?: string }>(service: string, manifest: M): M {
    const url = this.list()[service];
    if (!url) return manifest;
    const { integrity: _published, ...rest } = manifest;
    return { ...rest, url } as M;
  }
}
