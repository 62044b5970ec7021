/** Discovery: which service owns a DocType, and where its remote and APIs live (SPEC.md "Discovery client flow"). */
export {
  DiscoveryClient,
  type DiscoveryClientOptions,
  type DiscoveryHookEvents,
  type DiscoverySnapshot,
  type PrewarmOptions,
  type PrewarmOutcome,
  type PrewarmReport,
  type ServiceWarmer,
} from './discovery-client';
export { PluginRegistry, type PluginRegistryOptions, type RegistryListener } from './plugin-registry';
export type {
  DiscoveryOwner,
  DiscoveryQuery,
  DiscoveryResult,
  DiscoveryUnit,
  RemotesMap,
  ServiceManifest,
} from './protocol';
export { SERVICE_HEADER } from './protocol';
export { DISCOVERY_QUERY_PATH } from './transport';
