import type { ModuleRef } from '../config/module-ref';
import { importFunction } from '../engine/load-module';
import { harnessError } from '../errors';
import type { UserAuth } from './user-auth';

/** What a custom auth factory receives (once per user, and again after a 401). */
export interface AuthFactoryContext {
  /** The user's number (0-based, unique across workers). */
  user: number;
  targetUrl: string;
}

/**
 * `auth.mode: custom`: `factory` names a module export `(ctx: AuthFactoryContext) => headers` (or a promise
 * of them), e.g. `./auth.ts#signedHeaders`. The headers are sent on every request of the user; after a 401
 * the factory is called again and the request retried once.
 */
export function customAuth(ref: ModuleRef, ctx: AuthFactoryContext): UserAuth {
  let current: Record<string, string> = {};
  return {
    relogin: true,
    async login() {
      const factory = await importFunction(ref);
      const headers = await factory(ctx);
      if (!headers || typeof headers !== 'object') {
        throw harnessError('factory_failed', `auth factory ${ref.spec} must return an object of headers`);
      }
      current = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
    },
    headers: () => current,
    observe() {},
  };
}
