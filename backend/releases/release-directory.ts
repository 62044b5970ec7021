import type { ServiceManifest } from '../../src/protocol';
import { rewrittenDirectory, type ServiceDirectory } from '../gateway/service-directory';
import { entryIntegrity, releaseEntryUrl } from './personal-discovery';
import type { ReleaseService } from './release-service';

/**
 * What browsers see of a MACROSERVICE gateway's directory once releases are kept (docs/mfe-teams.md#releases):
 * a service with a live release is announced with that release's entry on the gateway
 * (`<gateway>/desk/assets/<service>/<version>/remoteEntry.js`) and its published hash, whatever the service
 * itself announces. The manifest's `rev` is the service's plus its channel's, so a promotion, a canary or a
 * pin is a newer manifest and clients ask again (both only grow, and both survive a NATS restart: the
 * channel's is in the database). Listeners hear of channel changes as of manifest changes.
 */
export function releaseDirectory(
  inner: ServiceDirectory,
  releases: Pick<ReleaseService, 'chosen' | 'channel' | 'subscribe'>,
  gatewayUrl: () => string,
): ServiceDirectory {
  const rewrite = (m: ServiceManifest): ServiceManifest => {
    const channel = releases.channel(m.service);
    const live = releases.chosen(m.service, undefined)?.release;
    if (!live) return channel.rev === 0 ? m : { ...m, rev: m.rev + channel.rev };
    const integrity = entryIntegrity(live);
    return {
      ...m,
      rev: m.rev + channel.rev,
      url: releaseEntryUrl(gatewayUrl(), m.service, live.version),
      ...(integrity ? { integrity } : {}),
    };
  };
  return rewrittenDirectory(inner, rewrite, (listener) => releases.subscribe(listener));
}
