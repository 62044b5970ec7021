/** Remote loading: the services' UI remotes through the Module Federation runtime. */

export type { FederationRuntime, RemoteLoaderHookEvents, RemoteLoaderOptions } from './remote-loader';
export { RemoteLoader } from './remote-loader';
