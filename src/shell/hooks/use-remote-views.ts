import { useEffect, useSyncExternalStore } from 'react';
import type { RemoteViews } from '../../contract/remote';
import type { LoadState } from '../platform/keyed-store';
import { usePlatform } from './use-platform';

/**
 * The `./views` module of `service`'s UI remote, loaded on first use: the first screen
 * that shows one of its views fetches and runs it.
 * `undefined` when `service` is undefined or has no remote.
 */
export function useRemoteViews(
  service: string | undefined,
  hasRemote: boolean,
): LoadState<RemoteViews> | undefined {
  const { remoteViews } = usePlatform();
  const states = useSyncExternalStore(remoteViews.subscribe, remoteViews.getSnapshot);
  useEffect(() => {
    if (service && hasRemote) remoteViews.load(service).catch(() => {});
  }, [remoteViews, service, hasRemote]);
  if (!service || !hasRemote) return undefined;
  return states[service] ?? { status: 'loading' };
}
