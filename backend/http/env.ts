import type { Principal } from '../../src/contract/caller';

export type { Principal };

/**
 * Variables a request carries through the middleware chain (Hono `c.get` / `c.set`).
 * - `jsonBody`: the parsed JSON body once PayloadDecryptionMiddleware decrypted an `application/jose` body
 *   (or parsed a plain JSON one); handlers read it through `readJsonBody`, never `c.req.json()`.
 * - `principal`: set by AuthMiddleware.
 * - `credentialHash`: a hash of the presented credential (cookie, API key, bearer), for idempotency keys.
 * - `sealedJwe`: a MACROSERVICE gateway's `application/jose` body encrypted to a service's own key, checked
 *   but not opened; only forwarding to that service sends it on (docs/security.md#encrypted-to-the-owning-service).
 */
export interface AppVariables {
  jsonBody?: unknown;
  principal?: Principal;
  credentialHash?: string;
  sealedJwe?: { token: string; service: string };
}

/** The Hono environment of the platform's app. */
export interface AppEnv {
  Variables: AppVariables;
}
