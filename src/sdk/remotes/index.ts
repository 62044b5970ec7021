/** Remote loading: the services' UI remotes through the Module Federation runtime. */
export {
  type FederationRuntime,
  RemoteLoader,
  type RemoteLoaderHookEvents,
  type RemoteLoaderOptions,
} from './remote-loader';
