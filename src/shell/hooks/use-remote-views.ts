import { useEffect, useSyncExternalStore } from 'react';
import type { RemoteViews } from '../../contract/remote';
import type { LoadState } from '../platform/keyed-store';
import { usePlatform } from './use-platform';

/** Loaders whose remotes wait for the page's style guard (requested once per loader). */
const guarded = new WeakSet<object>();

/**
 * The `./views` module of `service`'s UI remote, loaded on first use: the first screen
 * that shows one of its views fetches and runs it. Before the first one runs, the page's style guard starts,
 * so the styles a remote adds stay on its own views (docs/mfe-teams.md#styles-of-a-remote).
 * `undefined` when `service` is undefined or has no remote.
 */
export function useRemoteViews(
  service: string | undefined,
  hasRemote: boolean,
): LoadState<RemoteViews> | undefined {
  const { remoteViews, remotes } = usePlatform();
  const states = useSyncExternalStore(remoteViews.subscribe, remoteViews.getSnapshot);
  useEffect(() => {
    if (!service || !hasRemote) return;
    if (!guarded.has(remotes)) {
      guarded.add(remotes);
      // In its own chunk, fetched alongside the first remote: the loader runs no remote code before it.
      remotes.before(
        import(/* webpackChunkName: "style-guard" */ '../isolation/style-guard').then((m) =>
          m.ensureStyleGuard(remotes),
        ),
      );
    }
    remoteViews.load(service).catch(() => {});
  }, [remoteViews, remotes, service, hasRemote]);
  if (!service || !hasRemote) return undefined;
  return states[service] ?? { status: 'loading' };
}
