/**
 * The browser SDK of the Desk platform (`@framework-m/desk/sdk`): discovery, payload encryption, HTTP, the
 * Refine data provider, remote loading, and the base of its observable stores. Framework-agnostic: it never
 * imports React.
 */

export type { DataProviderOptions, DocTypeSchema, FieldSchema, ServiceMetadata } from './data';
export { fetchServiceMetadata, frameworkMDataProvider } from './data';
export type {
  DiscoveryClientOptions,
  DiscoveryHookEvents,
  DiscoveryQuery,
  DiscoveryResult,
  DiscoverySnapshot,
  DiscoveryUnit,
  PrewarmOptions,
  PrewarmOutcome,
  PrewarmReport,
  ServiceManifest,
  ServiceWarmer,
} from './discovery';
export { DiscoveryClient, PluginRegistry, SERVICE_HEADER } from './discovery';
export type { SdkErrorCode, SdkErrorOptions, SdkFieldError } from './errors';
export { isSdkError, SdkError } from './errors';
export type { HookEvents, HookListener } from './hooks';
export { Hooks } from './hooks';
export type { HttpClient, HttpClientOptions, RequestOptions } from './http';
export {
  createHttpClient,
  csrfTokenStore,
  fetchWithCredentials,
  HttpError,
  httpClient,
  login,
  logout,
} from './http';
export type { PlatformConfig, PlatformMode } from './platform-config';
export { readPlatformConfig } from './platform-config';
export type { FederationRuntime, RemoteLoaderHookEvents, RemoteLoaderOptions } from './remotes';
export { RemoteLoader } from './remotes';
export type { EncryptedPayload, EncryptionMode, SecurityClientOptions, SecurityConfig } from './security';
export { encryptPayload, JOSE_CONTENT_TYPE, SecurityClient, securityClient } from './security';
export type { StoreListener } from './store';
export { SnapshotStore, Subscribable } from './store';
