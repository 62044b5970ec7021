/**
 * The runtime plugin that checks what a container registered in the share scope when it was initialised,
 * before any of its modules runs: a remote requiring a shared singleton the Desk's version cannot serve stops
 * there, with `remote_shared_incompatible`.
 */
import { satisfy } from '@module-federation/enhanced/runtime';
import { RemoteLoadError } from './diagnosis';
import type { InitContainerPlugin } from './federation-runtime';
import {
  declaredInShareScope,
  describeIncompatible,
  incompatibleShared,
  type ShareScopeView,
} from './shared-versions';

/** The plugin, checking each initialised container against `deskVersions()` (package -> version). */
export function sharedVersionsPlugin(deskVersions: () => Record<string, string>): InitContainerPlugin {
  return {
    name: 'desk-remote-shared-versions',
    initContainer: (args) => {
      const service = args.remoteInfo.name;
      const declared = declaredInShareScope({ default: args.shareScope as ShareScopeView[string] }, service);
      const found = incompatibleShared(declared, deskVersions(), satisfy);
      if (found.length) {
        throw new RemoteLoadError(service, {
          code: 'remote_shared_incompatible',
          detail: describeIncompatible(found),
        });
      }
      return args;
    },
  };
}
