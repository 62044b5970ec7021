/**
 * MACROSERVICE: Link fields whose DocType another service owns. The owner comes from the platform's service
 * directory (the manifests on the bus the gateway routes by); the record is read from it with a request
 * signed like the gateway's own forwarded requests, carrying the caller's principal, so the owner applies
 * the same trust check and the same permissions as to any other read.
 */

import { signInternalRequest } from '../auth/internal-auth';
import type { ServiceDirectory } from '../gateway/service-directory';
import type { LinkResolver } from './integrity';

/** Options of {@link peerLinkResolver}. */
export interface PeerLinkOptions {
  /** The directory once known (the service starts serving before it has joined the bus). */
  directory(): Pick<ServiceDirectory, 'get' | 'ownerOf'> | undefined;
  /** The secret the gateway and the services share. */
  secret: string;
  /** Deadline of one check (`desk.upstream_timeout_ms`). */
  timeoutMs: number;
  fetch?: typeof fetch;
}

/**
 * A resolver that asks the owning service: 200 is "exists", 404 "does not"; anything else (no owner known,
 * the owner down or slow) is "cannot tell", which the data routes answer with 503.
 */
export function peerLinkResolver(options: PeerLinkOptions): LinkResolver {
  const send = options.fetch ?? fetch;
  return {
    async exists(docType, name, principal) {
      const directory = options.directory();
      const owner = directory?.ownerOf(docType);
      const manifest = owner ? directory?.get(owner) : undefined;
      if (!manifest) return undefined;
      const url = new URL(
        `${manifest.apiUrl.replace(/\/+$/, '')}/resource/${encodeURIComponent(docType)}/${encodeURIComponent(name)}`,
      );
      const headers = signInternalRequest(options.secret, {
        method: 'GET',
        target: `${url.pathname}${url.search}`,
        body: '',
        principal,
      });
      try {
        const response = await send(url, { headers, signal: AbortSignal.timeout(options.timeoutMs) });
        await response.body?.cancel();
        if (response.status === 200) return true;
        if (response.status === 404) return false;
        return undefined;
      } catch {
        return undefined;
      }
    },
  };
}
