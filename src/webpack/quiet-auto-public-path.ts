import type { Compiler } from 'webpack';

/** The manifest plugin's logger name (its messages reach webpack's infrastructure log under it). */
const MANIFEST_LOGGER = 'Module Federation Manifest Plugin';

/**
 * Drops the manifest plugin's notice that `mf-manifest.json` resolves its files against the host at run time
 * because `publicPath` is `'auto'`. A remote is built that way on purpose: the Desk registers it by the URL
 * of its `remoteEntry.js`, and its chunks load from beside that file, wherever the app serves it. The notice
 * came once per remote on every build and asked for nothing; every other message of the plugin still shows.
 */
export class QuietAutoPublicPathNotice {
  apply(compiler: Compiler): void {
    compiler.hooks.infrastructureLog.tap('QuietAutoPublicPathNotice', (name, _type, args) => {
      if (name !== MANIFEST_LOGGER) return undefined;
      const text = (args ?? []).map(String).join(' ');
      return /absolute path resolution via its host/.test(text) && /publicPath='auto'/.test(text)
        ? true
        : undefined;
    });
  }
}
