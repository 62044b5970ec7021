import type { DocTypeSchema } from '../../protocol';

/** A request body as it goes on the wire. */
export interface EncodedBody {
  body: string;
  contentType: string;
}

/**
 * Encodes request bodies the way the Desk does (docs/sdk.md#payload-encryption-and-http): the SDK's
 * `encryptPayload(body, url, method, schema?)` decides from the target's security mode whether a body is
 * sent as JSON or as an `application/jose` JWE. The harness depends on this interface so the engine can
 * run against servers without the security endpoints (plain JSON).
 */
export interface PayloadEncoder {
  encode(body: unknown, url: string, method: string, schema?: DocTypeSchema): Promise<EncodedBody>;
  /** Refetches the security config and JWKS, after the target refused a JWE as made with a stale key. */
  refresh?(): Promise<void>;
}

/** Plain JSON: what `encryptPayload` does in `disabled` mode. */
export const jsonEncoder: PayloadEncoder = {
  async encode(body) {
    return { body: JSON.stringify(body), contentType: 'application/json' };
  },
};
