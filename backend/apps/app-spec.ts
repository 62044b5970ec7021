import { isAbsolute } from 'node:path';

/** Pattern of a built-in app's name in `tool.platform.apps`. */
export const APP_NAME_SPEC = /^[a-z][a-z0-9_]*$/;

/**
 * True when an entry of `tool.platform.apps` is a path to an app folder rather than a built-in name: it is
 * absolute, starts with `.` or `~`, or contains a path separator.
 */
export function isAppPath(spec: string): boolean {
  return isAbsolute(spec) || /^[.~]/.test(spec) || /[\\/]/.test(spec);
}
