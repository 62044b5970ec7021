/**
 * HTTP method classes the platform's rules are written in. Methods compare upper-cased, so `post` and
 * `POST` are the same method.
 */

/** Methods that change state and carry a body the encryption modes apply to. */
export const MUTATING_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Safe methods (RFC 9110 section 9.2.1): they never need a CSRF token. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** True for POST, PUT, PATCH and DELETE, in any letter case. */
export function isMutating(method: string): boolean {
  return MUTATING_METHODS.has(method.toUpperCase());
}

/** True for GET, HEAD and OPTIONS, in any letter case; anything else is unsafe and carries the CSRF token. */
export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method.toUpperCase());
}
