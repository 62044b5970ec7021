/** Build-time flag set by webpack's DefinePlugin: true in the offline-development build. */
declare const __DESK_DEV__: boolean;

/** CSS files are bundled as strings (`asset/source`) and injected by the shell. */
declare module '*.css' {
  const css: string;
  export default css;
}
