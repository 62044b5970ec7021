/** Who made a request, once AuthMiddleware has run. */
export interface Principal {
  /** User name, e.g. `Administrator`. */
  user: string;
  /** How the request authenticated. */
  via: 'session' | 'api_key' | 'bearer';
  /**
   * The user's roles when the credential was resolved (docs/permissions.md). In MACROSERVICE they travel in
   * the principal the gateway signs; a service takes roles from nowhere else. Absent: no roles.
   */
  roles?: readonly string[];
}

/**
 * Variables a request carries through the middleware chain (Hono `c.get` / `c.set`).
 * - `jsonBody`: the parsed JSON body once PayloadDecryptionMiddleware decrypted an `application/jose` body
 *   (or parsed a plain JSON one); handlers read it through `readJsonBody`, never `c.req.json()`.
 * - `principal`: set by AuthMiddleware.
 * - `credentialHash`: a hash of the presented credential (cookie, API key, bearer), for idempotency keys.
 */
export interface AppVariables {
  jsonBody?: unknown;
  principal?: Principal;
  credentialHash?: string;
}

/** The Hono environment of the platform's app. */
export interface AppEnv {
  Variables: AppVariables;
}
