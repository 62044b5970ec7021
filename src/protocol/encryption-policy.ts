/**
 * The one payload-encryption rule. The server enforces it (a plaintext body where it says "encrypt" is
 * refused with 415 before any handler runs); the client applies the same function so it encrypts exactly
 * where the server will insist.
 *
 * | Mode      | Encrypts a body when                                                                     |
 * |-----------|------------------------------------------------------------------------------------------|
 * | disabled  | never                                                                                    |
 * | selective | the path matches a route glob (built-in credential routes plus configured ones)          |
 * | metadata  | the method is mutating and the target DocType has a field flagged `encrypted` or `pii`   |
 * | strict    | the method is mutating, except under `/api/gateway/` and `/api/v1/security/`             |
 *
 * Strict mode exempts discovery and the security endpoints: they carry no record data, and a client calls
 * them before it has the security config (and so before it could encrypt anything). Metadata mode exempts a
 * file attached to a record (`POST /api/resource/<DocType>/<name>/attachments`): its body is a file, not the
 * record's flagged fields, and only JSON can be encrypted.
 */
import { type FlaggedSchema, hasFlaggedFields } from './doctype-schema';
import { isMutating } from './methods';
import {
  CHANGE_PASSWORD_PATH,
  GATEWAY_PREFIX,
  GENERATE_API_KEY_PATH,
  LOGIN_PATH,
  SECURITY_PREFIX,
  USERS_PATHS,
} from './paths';
import { matchesRoute } from './route-match';
import type { EncryptionMode } from './security';

/**
 * Routes `selective` mode always encrypts: login, password change and API-key creation, whose bodies carry
 * credentials. Configured routes are merged with these, and the config endpoint reports the union.
 */
export const BUILTIN_SELECTIVE_ROUTES: readonly string[] = [
  LOGIN_PATH,
  CHANGE_PASSWORD_PATH,
  GENERATE_API_KEY_PATH,
  USERS_PATHS.add,
  USERS_PATHS.setPassword,
];

/** A record's attachment upload, which `metadata` mode leaves alone (see above). */
const ATTACHMENT_UPLOAD = /^\/api\/resource\/[^/]+\/[^/]+\/attachments$/;

/** Path prefixes `strict` mode leaves alone (see the table above). */
export const STRICT_EXEMPT_PREFIXES: readonly string[] = [GATEWAY_PREFIX, SECURITY_PREFIX];

/** What the rule needs from the config: the mode, and for `selective` the route globs. */
export interface EncryptionRule {
  mode: EncryptionMode;
  /** Route globs of `selective` mode; the server's list already includes {@link BUILTIN_SELECTIVE_ROUTES}. */
  routes?: readonly string[];
}

/**
 * Must a body sent with `method` to `path` (no query) be encrypted under `rule`? `schema` is the target
 * DocType's schema, which only `metadata` mode reads. An unknown mode (a newer server) answers true:
 * encrypting is the side that cannot leak.
 */
export function requiresEncryption(
  rule: EncryptionRule,
  method: string,
  path: string,
  schema?: FlaggedSchema,
): boolean {
  switch (rule.mode) {
    case 'disabled':
      return false;
    case 'selective':
      return matchesRoute(path, rule.routes ?? []);
    case 'metadata':
      return isMutating(method) && hasFlaggedFields(schema) && !ATTACHMENT_UPLOAD.test(path);
    case 'strict':
      return isMutating(method) && !startsWithAny(path, STRICT_EXEMPT_PREFIXES);
    default:
      return true;
  }
}

/** True when `path` starts with one of `prefixes` (a loop: this runs for every request). */
function startsWithAny(path: string, prefixes: readonly string[]): boolean {
  for (const prefix of prefixes) if (path.startsWith(prefix)) return true;
  return false;
}
