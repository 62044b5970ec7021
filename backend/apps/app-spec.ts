/** Pattern of a built-in app's name in `tool.platform.apps`. */
export const APP_NAME_SPEC = /^[a-z][a-z0-9_]*$/;

/**
 * True when an entry of `tool.platform.apps` is a path to an app folder rather than a built-in name: it is
 * absolute, starts with `.` or `~`, or contains a path separator. No Node modules: the configuration schema
 * that uses it also runs in the browser (the mock backend).
 */
export function isAppPath(spec: string): boolean {
  return /^(?:[.~/\\]|[A-Za-z]:[\\/])/.test(spec) || /[\\/]/.test(spec);
}
