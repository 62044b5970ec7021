import { join, resolve } from 'node:path';
import { AuthService } from '../auth/auth-service';
import type { AuthStore } from '../auth/auth-store';
import { DbAuthStore } from '../auth/db-auth-store';
import type { PasswordHasher } from '../auth/password-hasher';
import { ScryptPasswordHasher } from '../auth/passwords';
import type { PlatformConfig } from '../config/schema';
import type { Database } from '../db/database';
import { PlatformError } from '../http/errors';
import { createEncryptionPolicy, type DocTypeLookup, type EncryptionPolicy } from './encryption-policy';
import { DbIdempotencyStore } from './idempotency/db-idempotency-store';
import type { IdempotencyStore } from './idempotency/idempotency-store';
import { FileKeyStore } from './keys/file-key-store';
import type { KeyStore } from './keys/key-store';

/** The security services the middleware chain and the security/auth routes share (`ctx.security`). */
export interface SecurityContext {
  keys: KeyStore;
  policy: EncryptionPolicy;
  idempotency: IdempotencyStore;
  auth: AuthService;
  /** Stops the background sweep of expired idempotency records. Idempotent. */
  close(): void;
}

/** How often expired idempotency records are deleted from the database. */
const SWEEP_INTERVAL_MS = 10 * 60_000;

/** Options of {@link createSecurityContext}; the stores are injectable for tests and other deployments. */
export interface SecurityContextOptions {
  config: PlatformConfig;
  db: Pick<Database, 'query' | 'exec'>;
  log: (line: string) => void;
  /** The DocType registry (metadata mode looks flagged fields up in it). */
  doctypes?: DocTypeLookup;
  /** Default: a FileKeyStore in `<data_dir>/keys`. */
  keys?: KeyStore;
  /** Default: the database store. */
  idempotency?: IdempotencyStore;
  /** Users, sessions, API keys and tokens; default the database store. */
  authStore?: AuthStore;
  /** Default: scrypt. */
  passwords?: PasswordHasher;
  /** Environment (for `PLATFORM_ADMIN_PASSWORD`); default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** Default password of `Administrator` when `PLATFORM_ADMIN_PASSWORD` is not set (a warning is logged). */
export const DEFAULT_ADMIN_PASSWORD = 'admin';

/**
 * Builds the security services at start: checks that the JWKS cache is shorter than the key grace period
 * (docs/security.md#key-rotation-without-failures), opens (or on first start creates) the key directory,
 * creates the auth and idempotency tables, and creates `Administrator` on first start.
 */
export async function createSecurityContext(options: SecurityContextOptions): Promise<SecurityContext> {
  const { config, db, log } = options;
  const pe = config.security.payload_encryption;
  if (pe.jwks_max_age_seconds >= pe.key_grace_seconds) {
    throw new PlatformError(
      'config_invalid',
      'tool.platform.security.payload_encryption.jwks_max_age_seconds must be shorter than key_grace_seconds',
    );
  }
  const graceMs = pe.key_grace_seconds * 1000;
  const keys =
    options.keys ??
    (await FileKeyStore.open({ dir: join(resolve(config.server.data_dir), 'keys'), graceMs }));

  const auth = new AuthService({
    store: options.authStore ?? new DbAuthStore(db),
    passwords: options.passwords ?? new ScryptPasswordHasher(),
    sessionTtlMs: config.security.session.ttl_seconds * 1000,
  });
  await auth.migrate();
  const env = options.env ?? process.env;
  const password = env.PLATFORM_ADMIN_PASSWORD || DEFAULT_ADMIN_PASSWORD;
  if (await auth.ensureAdministrator(password)) {
    log(
      env.PLATFORM_ADMIN_PASSWORD
        ? 'created user Administrator with the password from PLATFORM_ADMIN_PASSWORD'
        : 'WARNING: created user Administrator with the default password "admin"; set PLATFORM_ADMIN_PASSWORD',
    );
  }

  let idempotency = options.idempotency;
  let sweeper: NodeJS.Timeout | undefined;
  if (!idempotency) {
    const store = new DbIdempotencyStore(db);
    await store.migrate();
    idempotency = store;
    sweeper = setInterval(() => {
      store.sweep().catch((err: Error) => log(`idempotency sweep failed: ${err.message}`));
    }, SWEEP_INTERVAL_MS);
    sweeper.unref();
  }
  const policy = createEncryptionPolicy({ mode: pe.mode, routes: pe.routes, doctypes: options.doctypes });
  return { keys, policy, idempotency, auth, close: () => clearInterval(sweeper) };
}
