import { useSyncExternalStore } from 'react';
import type { DevBuildStatus } from '../../protocol/dev-build';
import { usePlatform } from './use-platform';

/** The latest build status of the dev server `service`'s overridden remote comes from; undefined when none. */
export function useDevBuild(service: string): DevBuildStatus | undefined {
  const { devBuilds } = usePlatform();
  return useSyncExternalStore(devBuilds.subscribe, devBuilds.getSnapshot)[service];
}
