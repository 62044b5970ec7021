/** Discovery: which service owns a DocType, and where its remote and APIs live (docs/sdk.md#discovery). */

export type {
  DiscoveryOwner,
  DiscoveryQuery,
  DiscoveryResult,
  DiscoveryUnit,
  RemotesMap,
  ServiceManifest,
} from '../../protocol';
export { DISCOVERY_QUERY_PATH, SERVICE_HEADER } from '../../protocol';
export type {
  DiscoveryClientOptions,
  DiscoveryHookEvents,
  DiscoverySnapshot,
  PrewarmOptions,
  PrewarmOutcome,
  PrewarmReport,
  ServiceWarmer,
} from './discovery-client';
export { DiscoveryClient } from './discovery-client';
export type { PluginRegistryOptions, RegistryListener } from './plugin-registry';
export { PluginRegistry } from './plugin-registry';
