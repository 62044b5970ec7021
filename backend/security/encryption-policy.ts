import type { EncryptionMode } from '../../src/sdk/security/protocol';
import type { DocTypeField } from '../doctypes/define-doctype';
import { hasFlaggedFields } from '../doctypes/define-doctype';

/**
 * Routes `selective` mode always encrypts (docs/security.md#payload-encryption-modes): login, password change
 * and API-key creation, whose bodies carry credentials. Configured `routes` are merged with these.
 */
export const BUILTIN_SELECTIVE_ROUTES = [
  '/api/method/login',
  '/api/method/platform.auth.change_password',
  '/api/method/platform.auth.generate_api_key',
] as const;

/**
 * Paths `strict` mode leaves alone: discovery and the security endpoints themselves carry no payload data,
 * and the shell calls them before it has the security config.
 */
const STRICT_EXEMPT_PREFIXES = ['/api/gateway/', '/api/v1/security/'];

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Looks DocTypes up by full name (`crm.Customer`); the app's DocType registry satisfies it. */
export interface DocTypeLookup {
  get(name: string): { fields: DocTypeField[] } | undefined;
}

/** What the server enforces (docs/security.md#the-server-enforces-the-mode); built once from config. */
export interface EncryptionPolicy {
  mode: EncryptionMode;
  /** Built-in selective routes merged with configured ones (what `/api/v1/security/config` reports). */
  routes: string[];
  /** True when a plaintext body on this request must be refused with 415. */
  requiresEncryption(method: string, path: string): boolean;
}

/**
 * Compiles a path glob: `*` matches within one segment, `**` across segments, everything else literally.
 * @example globToRegExp('/api/method/crm.*').test('/api/method/crm.convert') // true
 */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*' && glob[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (ch === '*') source += '[^/]*';
    else source += ch.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** The DocType named by `/api/resource/<DocType>[/...]`, or undefined for any other path. */
export function doctypeOfPath(path: string): string | undefined {
  const match = /^\/api\/resource\/([^/]+)(?:\/|$)/.exec(path);
  return match?.[1];
}

/** Builds the policy for a mode, configured extra routes and the DocType registry. */
export function createEncryptionPolicy(options: {
  mode: EncryptionMode;
  routes: readonly string[];
  doctypes?: DocTypeLookup;
}): EncryptionPolicy {
  const routes = [...new Set([...BUILTIN_SELECTIVE_ROUTES, ...options.routes])];
  const patterns = routes.map(globToRegExp);
  const { mode, doctypes } = options;
  return {
    mode,
    routes,
    requiresEncryption(method, path) {
      switch (mode) {
        case 'disabled':
          return false;
        case 'selective':
          return patterns.some((p) => p.test(path));
        case 'metadata': {
          if (!MUTATING.has(method.toUpperCase())) return false;
          const name = doctypeOfPath(path);
          const doctype = name === undefined ? undefined : doctypes?.get(name);
          return doctype !== undefined && hasFlaggedFields(doctype);
        }
        case 'strict':
          return (
            MUTATING.has(method.toUpperCase()) && !STRICT_EXEMPT_PREFIXES.some((p) => path.startsWith(p))
          );
      }
    },
  };
}
