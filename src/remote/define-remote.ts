import type { RemoteViews } from '../contract/remote';

/**
 * Declares a remote's `./views` module (its default export): per DocType the views replacing the Desk's
 * generic ones, and home widgets. An identity at run time; it exists so a mistyped view is a compile error.
 */
export function defineRemote<V extends RemoteViews>(views: V): V {
  return views;
}
