/**
 * Whether this browser was signed in when the Desk last knew: a flag in `localStorage`, set while signed in
 * and removed on sign-out or an expired session. The session cookie itself is out of the page's reach
 * (HttpOnly), so without the flag the Desk would ask the server at every boot and a browser that never
 * signed in would start with a refused request (a 401 in its console). No credential is stored: the flag
 * only decides whether asking is worth it.
 */

const STORAGE_KEY = 'desk.signed-in';

function storage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined; // storage blocked by the browser's privacy settings
  }
}

/**
 * True when a session may exist: the flag is set, or storage cannot tell (blocked storage must not keep a
 * signed-in user out).
 */
export function mayHaveSession(): boolean {
  const s = storage();
  return s === undefined || s.getItem(STORAGE_KEY) === '1';
}

/** Records that this browser is signed in (`true`) or signed out. */
export function rememberSession(signedIn: boolean): void {
  const s = storage();
  if (signedIn) s?.setItem(STORAGE_KEY, '1');
  else s?.removeItem(STORAGE_KEY);
}
