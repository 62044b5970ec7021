/**
 * The browser SDK of the Desk platform (`@framework-m/desk/sdk`): discovery, payload encryption, HTTP, the
 * Refine data provider and remote loading. Framework-agnostic: it never imports React.
 */

export type { DocTypeSchema, FieldSchema, ServiceMetadata } from './data';
export { type DataProviderOptions, fetchServiceMetadata, frameworkMDataProvider } from './data';
export type { DiscoveryQuery, DiscoveryResult, DiscoveryUnit, ServiceManifest } from './discovery';
export {
  DiscoveryClient,
  type DiscoveryClientOptions,
  type DiscoveryHookEvents,
  type DiscoverySnapshot,
  PluginRegistry,
  type PrewarmOptions,
  type PrewarmOutcome,
  type PrewarmReport,
  SERVICE_HEADER,
  type ServiceWarmer,
} from './discovery';
export { isSdkError, SdkError, type SdkErrorCode, type SdkErrorOptions, type SdkFieldError } from './errors';
export { type HookEvents, type HookListener, Hooks } from './hooks';
export {
  createHttpClient,
  csrfTokenStore,
  fetchWithCredentials,
  type HttpClient,
  type HttpClientOptions,
  HttpError,
  httpClient,
  login,
  logout,
  type RequestOptions,
} from './http';
export { type PlatformConfig, type PlatformMode, readPlatformConfig } from './platform-config';
export {
  type FederationRuntime,
  RemoteLoader,
  type RemoteLoaderHookEvents,
  type RemoteLoaderOptions,
} from './remotes';
export {
  type EncryptedPayload,
  type EncryptionMode,
  encryptPayload,
  JOSE_CONTENT_TYPE,
  SecurityClient,
  type SecurityClientOptions,
  type SecurityConfig,
  securityClient,
} from './security';
