/**
 * "A new version of <app> is available" (a newer release, by version) or "A different version of <app> is
 * now live" (an older one after a rollback, or one the versions do not order): shown after a navigation when
 * the gateway hands out another release of a remote than the one this tab started with
 * (docs/mfe-teams.md#releases). The tab keeps working with its release; loading the other one is the user's
 * choice (a reload, so nothing is swapped under an open form).
 */
import { useEffect, useRef, useState } from 'react';
import type { RemotesMap } from '../../protocol';
import { fetchWithCredentials } from '../../sdk/http';
import { useCatalog } from '../hooks/use-catalog';
import { usePlatform } from '../hooks/use-platform';
import { useRoute } from '../hooks/use-route';
import type { DeskPlatform } from '../platform/create-platform';
import { type ReleaseChange, ReleaseWatch } from '../platform/releases';

const watches = new WeakMap<DeskPlatform, ReleaseWatch>();

/** One watch per platform, so a remount (sign-out and in) keeps what the tab started with. */
function watchOf(platform: DeskPlatform): ReleaseWatch {
  let watch = watches.get(platform);
  if (!watch) {
    watch = new ReleaseWatch({
      gatewayUrl: platform.config.gatewayUrl,
      fetchRemotes: (url) => fetchWithCredentials<RemotesMap>(url),
      // The navigation's own discovery revalidation (platform/create-platform.ts): one request for both.
      revalidate: () => platform.discovery.revalidate(),
    });
    watches.set(platform, watch);
  }
  return watch;
}

/**
 * One service's offer: "new" only for a release with a higher version, since after a rollback the release
 * now live is an older one. The button is the same either way: it loads what is live.
 */
export function ReleaseOfferLine({
  change,
  label,
}: {
  change: ReleaseChange;
  label: string;
}): React.JSX.Element {
  return (
    <p>
      {change.direction === 'newer' ? (
        <>
          A new version of <strong>{label}</strong> is available.
        </>
      ) : (
        <>
          A different version of <strong>{label}</strong> is now live.
        </>
      )}{' '}
      <button
        type="button"
        className="desk-button desk-button--small"
        onClick={() => window.location.reload()}
      >
        Load the new version
      </button>
    </p>
  );
}

/** The offer, or nothing while every remote is the one this tab started with. */
export function ReleaseOffer(): React.JSX.Element | null {
  const platform = usePlatform();
  const catalog = useCatalog();
  const { route } = useRoute();
  const watch = watchOf(platform);
  const [changes, setChanges] = useState<ReleaseChange[]>([]);
  const booted = useRef(false);
  // A screen, not a list's filters or page: those change as the user types.
  const screen = `${route.kind}:${'docType' in route ? route.docType : ''}:${route.kind === 'edit' ? route.id : ''}`;

  useEffect(() => watch.observe(catalog.services), [watch, catalog.services]);

  useEffect(() => {
    void screen;
    // The first screen is what the tab started with: nothing to compare yet.
    if (!booted.current) {
      booted.current = true;
      return;
    }
    let current = true;
    void watch.check().then((found) => {
      if (current) setChanges(found);
    });
    return () => {
      current = false;
    };
  }, [watch, screen]);

  if (changes.length === 0) return null;
  const labelOf = (service: string) => {
    const state = catalog.metadata[service];
    return state?.status === 'ready' ? state.value.label || service : service;
  };
  return (
    <div
      className="desk-banner desk-banner--warning desk-release-offer"
      role="status"
      aria-label="New versions"
    >
      {changes.map((change) => (
        <ReleaseOfferLine key={change.service} change={change} label={labelOf(change.service)} />
      ))}
    </div>
  );
}
