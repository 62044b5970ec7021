/**
 * A federation runtime plugin of the Desk's page (browser code, listed in the shell's `runtimePlugins`): it
 * publishes the page's one Module Federation runtime core as `globalThis._FEDERATION_RUNTIME_CORE`, which
 * every remote built with `createRemoteConfig` (`experiments.externalRuntime`) uses instead of a copy of its
 * own (docs/performance.md#the-first-screen).
 *
 * It does what `experiments.provideExternalRuntime` does, but imports the runtime core as an ES module: the
 * plugin that option adds is resolved as CommonJS and would bring a second copy of the core into the page.
 */
import type { ModuleFederationRuntimePlugin } from '@module-federation/runtime';
import * as runtimeCore from '@module-federation/runtime/core';

/** The global the remotes' `externalRuntime` builds read the runtime core from. */
export const RUNTIME_CORE_GLOBAL = '_FEDERATION_RUNTIME_CORE';

/** The runtime plugin: publishes the core before the page's federation instance initialises. */
export default function provideFederationRuntime(): ModuleFederationRuntimePlugin {
  return {
    name: 'desk-provide-federation-runtime',
    beforeInit(args) {
      const global = runtimeCore.Global as Record<string, unknown>;
      global[RUNTIME_CORE_GLOBAL] ??= runtimeCore;
      return args;
    },
  };
}
