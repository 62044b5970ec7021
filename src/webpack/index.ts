/**
 * Build helpers for UI remotes (`@framework-m/desk/webpack`): {@link createRemoteConfig} gives a team's
 * remote the same Module Federation setup as the platform's own (shared singletons, `window` container,
 * `publicPath: 'auto'`, hashing, `mf-manifest.json`).
 */
export type { RemoteBuildEnv, RemoteConfigOptions } from './create-remote-config';
export { createRemoteConfig, hashedFilename, REMOTE_MANIFEST_FILE } from './create-remote-config';
export type { FirstScreenOptions } from './first-screen-plugin';
export {
  FIRST_SCREEN_DEFERRED,
  FIRST_SCREEN_FILE,
  FirstScreenPlugin,
  firstScreenFiles,
} from './first-screen-plugin';
export { optimization, TERSER_OPTIONS } from './minify';
export type { SharedEntry, SharedRole } from './shared';
export { PLATFORM_ROOT, platformDependencies, SHARED_SINGLETONS, sharedSingletons } from './shared';
