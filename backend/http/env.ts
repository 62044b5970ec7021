import type { Principal } from '../../src/contract/caller';
import type { IdempotencyClaim } from '../security/idempotency/idempotency-store';

export type { Principal };

/**
 * Variables a request carries through the middleware chain (Hono `c.get` / `c.set`).
 * - `jsonBody`: the parsed JSON body once PayloadDecryptionMiddleware decrypted an `application/jose` body
 *   (or parsed a plain JSON one); handlers read it through `readJsonBody`, never `c.req.json()`.
 * - `principal`: set by AuthMiddleware.
 * - `credentialHash`: a hash of the presented credential (cookie, API key, bearer), for idempotency keys.
 * - `sealedJwe`: a MACROSERVICE gateway's `application/jose` body encrypted to a service's own key, checked
 *   but not opened; only forwarding to that service sends it on (docs/security.md#encrypted-to-the-owning-service).
 * - `idempotency`: the `Idempotency-Key` this request owns, which a record write completes in its transaction.
 * - `idempotencyLookup`: the caller-scoped lookup key a MACROSERVICE gateway passes on, signed, to the
 *   service keeping the record (set at the gateway by IdempotencyMiddleware, at the service by trustGateway).
 */
export interface AppVariables {
  jsonBody?: unknown;
  principal?: Principal;
  credentialHash?: string;
  sealedJwe?: { token: string; service: string };
  idempotency?: IdempotencyClaim;
  idempotencyLookup?: string;
}

/** The Hono environment of the platform's app. */
export interface AppEnv {
  Variables: AppVariables;
}
