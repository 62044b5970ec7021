/**
 * Build helpers for UI remotes (`@framework-m/desk/webpack`): {@link createRemoteConfig} gives a team's
 * remote the same Module Federation setup as the platform's own (shared singletons, `window` container,
 * `publicPath: 'auto'`, hashing, `mf-manifest.json`).
 */
export type { RemoteConfigOptions } from './create-remote-config';
export { createRemoteConfig, hashedFilename, REMOTE_MANIFEST_FILE } from './create-remote-config';
export type { SharedEntry } from './shared';
export { PLATFORM_ROOT, platformDependencies, SHARED_SINGLETONS, sharedSingletons } from './shared';
