/** Remote loading: the services' UI remotes through the Module Federation runtime. */

export type { HintDocument } from './entry-hint';
export { hintEntry } from './entry-hint';
export type { IntegrityCheck } from './integrity';
export { verifyIntegrity } from './integrity';
export type { OverridePolicy, OverrideResult, OverrideStorage } from './overrides';
export {
  isAllowedOverrideUrl,
  OVERRIDE_PARAM,
  OVERRIDES_STORAGE_KEY,
  parseOverrideParams,
  RemoteOverrides,
} from './overrides';
export type { FederationRuntime, RemoteLoaderHookEvents, RemoteLoaderOptions } from './remote-loader';
export { RemoteLoader } from './remote-loader';
export type { SharedVersionMismatch } from './shared-versions';
export { CHECKED_SHARED, describeMismatch, sharedVersionMismatches } from './shared-versions';
