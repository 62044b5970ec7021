/**
 * The part of the Module Federation runtime instance the remote loader uses, so tests can inject a small
 * double instead of the real runtime.
 */
import type { ScriptPlugin } from './integrity';
import type { ShareScopeView } from './shared-versions';

/** A runtime plugin hook run after a container's `init` (its shared packages registered, none of its modules run). */
export interface InitContainerPlugin {
  name: string;
  initContainer<A extends { remoteInfo: { name: string }; shareScope: unknown }>(args: A): A;
}

/** The part of the Module Federation runtime instance the loader uses. */
export interface FederationRuntime {
  registerRemotes(remotes: Array<{ name: string; entry: string }>, options?: { force?: boolean }): void;
  loadRemote<T>(id: string): Promise<T | null>;
  preloadRemote(options: Array<{ nameOrAlias: string; exposes?: string[] }>): Promise<void>;
  /** Adds runtime plugins (the integrity and shared-version hooks); absent on minimal test doubles. */
  registerPlugins?(plugins: Array<ScriptPlugin | InitContainerPlugin>): void;
  /** The share scopes (who registered which shared version); read for version checks when present. */
  shareScopeMap?: ShareScopeView;
  /** The instance's own options; `name` identifies the Desk's registrations in the share scope. */
  options?: { name?: string };
}
