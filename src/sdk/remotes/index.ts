/** Remote loading: the services' UI remotes through the Module Federation runtime. */

export type {
  BuildEventSource,
  DevBuildSnapshot,
  OpenBuildEvents,
} from './dev-build-watcher';
export { DevBuildWatcher, devBuildStatusUrl } from './dev-build-watcher';
export type { CspRefusal, RemoteDiagnosis, RemoteDiagnosisCode } from './diagnosis';
export { checkViewsShape, diagnosisOf, RemoteLoadError } from './diagnosis';
export type { HintDocument } from './entry-hint';
export { hintEntry } from './entry-hint';
export type { FederationRuntime } from './federation-runtime';
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
export { RemoteLoader } from './remote-loader';
export type { RemoteLoaderHookEvents, RemoteLoaderOptions } from './remote-loader-options';
export type { RemoteManifestView } from './remote-manifest';
export {
  checkRemoteManifest,
  fetchRemoteManifest,
  manifestUrlOf,
  parseRemoteManifest,
  REMOTE_MANIFEST_FILE,
} from './remote-manifest';
export type { DeclaredShared, SharedIncompatibility, SharedVersionMismatch } from './shared-versions';
export {
  CHECKED_SHARED,
  declaredInShareScope,
  describeIncompatible,
  describeMismatch,
  deskSharedVersions,
  incompatibleShared,
  NEGOTIATED_SHARED,
  sharedVersionMismatches,
} from './shared-versions';
