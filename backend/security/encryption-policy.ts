import {
  BUILTIN_SELECTIVE_ROUTES,
  type EncryptionMode,
  type FlaggedSchema,
  requiresEncryption,
} from '../../src/protocol';

/** Looks DocTypes up by full name (`crm.Customer`); the app's DocType registry satisfies it. */
export interface DocTypeLookup {
  get(name: string): FlaggedSchema | undefined;
}

/** What the server enforces (docs/security.md#the-server-enforces-the-mode); built once from config. */
export interface EncryptionPolicy {
  mode: EncryptionMode;
  /** Built-in selective routes merged with configured ones (what `/api/v1/security/config` reports). */
  routes: string[];
  /** True when a plaintext body on this request must be refused with 415. */
  requiresEncryption(method: string, path: string): boolean;
}

/** The DocType named by `/api/resource/<DocType>[/...]`, or undefined for any other path. */
export function doctypeOfPath(path: string): string | undefined {
  const match = /^\/api\/resource\/([^/]+)(?:\/|$)/.exec(path);
  return match?.[1];
}

/**
 * Builds the policy for a mode, configured extra routes and the DocType registry. The rule itself is the
 * wire contract's `requiresEncryption`, the one the SDK applies too; the server's part is finding the
 * schema of the DocType a path names, which `metadata` mode reads.
 */
export function createEncryptionPolicy(options: {
  mode: EncryptionMode;
  routes: readonly string[];
  doctypes?: DocTypeLookup;
}): EncryptionPolicy {
  const routes = [...new Set([...BUILTIN_SELECTIVE_ROUTES, ...options.routes])];
  const { mode, doctypes } = options;
  const rule = { mode, routes };
  return {
    mode,
    routes,
    requiresEncryption(method, path) {
      const name = mode === 'metadata' ? doctypeOfPath(path) : undefined;
      const schema = name === undefined ? undefined : doctypes?.get(name);
      return requiresEncryption(rule, method, path, schema);
    },
  };
}
