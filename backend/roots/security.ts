import { join, resolve } from 'node:path';
import { AuthService } from '../auth/auth-service';
import type { AuthStore } from '../auth/auth-store';
import { DbAuthStore } from '../auth/db-auth-store';
import { ADMIN_PASSWORD_ENV, DEFAULT_ADMIN_PASSWORD } from '../auth/default-password';
import { HashGate } from '../auth/hash-gate';
import { type AttemptStore, MemoryAttemptStore } from '../auth/login-attempts';
import { type LoginRefusalHold, LoginThrottle } from '../auth/login-throttle';
import type { PasswordHasher } from '../auth/password-hasher';
import { ScryptPasswordHasher } from '../auth/passwords';
import type { UserDirectory } from '../auth/user-directory';
import type { PlatformConfig } from '../config/schema';
import type { Database } from '../db/database';
import { PlatformError } from '../http/errors';
import {
  createEncryptionPolicy,
  type DocTypeLookup,
  type EncryptionPolicy,
} from '../security/encryption-policy';
import { type AnswerCipher, DbIdempotencyStore } from '../security/idempotency/db-idempotency-store';
import type { IdempotencyStore } from '../security/idempotency/idempotency-store';
import { FileKeyStore } from '../security/keys/file-key-store';
import type { KeyStore } from '../security/keys/key-store';
import { DbSeenSet } from '../security/replay/db-seen-set';
import { ReplayGuard } from '../security/replay/replay-guard';
import { EverySeenSet, MemorySeenSet, type SeenSet } from '../security/replay/seen-set';

/**
 * The security services the middleware chain and the security/auth routes share (`ctx.security`). It joins
 * the security and auth rooms, so it is declared here, where both are composed, and neither room imports
 * the other.
 */
export interface SecurityContext {
  keys: KeyStore;
  policy: EncryptionPolicy;
  idempotency: IdempotencyStore;
  auth: AuthService;
  /**
   * Refuses replayed request JWEs (`iat` window and `jti` seen-set); always set by
   * {@link createSecurityContext}, absent only in hand-built contexts (the offline mocks).
   */
  replay?: ReplayGuard;
  /** Users and roles (the users API, `m user`); the same as `auth.users`. */
  users: UserDirectory;
  /** Counts failed sign-ins and locks accounts and addresses out (docs/security.md#login-throttling). */
  loginThrottle: LoginThrottle;
  /** Bounds the password checks in flight. */
  hashGate: HashGate;
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
  /**
   * Seals the answers the default database store keeps for `Idempotency-Key` replays: given to a process
   * that stores personal data at rest (the records' cipher), so an answer holding a revealed value is not
   * stored in clear (docs/security.md#personal-data-at-rest).
   */
  answerCipher?: AnswerCipher;
  /**
   * A seen-set several processes share (MACROSERVICE gateways: NATS KV), asked after the database; without
   * one, seen ids live in memory and tokens made before the start are refused.
   */
  seenJwes?: SeenSet;
  /** Users, sessions, API keys and tokens; default the database store. */
  authStore?: AuthStore;
  /** Default: scrypt. */
  passwords?: PasswordHasher;
  /** Whether to create Administrator on first start (not in a MACROSERVICE service). Default true. */
  administrator?: boolean;
  /** Where failed sign-ins are counted; default this process's memory. */
  loginAttempts?: AttemptStore;
  /** How refusals of locked sign-ins are held; default {@link LoginThrottle}'s. */
  loginThrottle?: LoginRefusalHold;
  /**
   * Administrator's password when the user is first created (`PLATFORM_ADMIN_PASSWORD`, read by the process's
   * root); absent or empty: {@link DEFAULT_ADMIN_PASSWORD}, with a warning.
   */
  adminPassword?: string;
}

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
  const password = options.adminPassword || DEFAULT_ADMIN_PASSWORD;
  if (options.administrator !== false && (await auth.ensureAdministrator(password))) {
    log(
      options.adminPassword
        ? `created user Administrator with the password from ${ADMIN_PASSWORD_ENV}`
        : `WARNING: created user Administrator with the default password "${DEFAULT_ADMIN_PASSWORD}"; set ${ADMIN_PASSWORD_ENV}`,
    );
  }

  let idempotency = options.idempotency;
  let sweeper: NodeJS.Timeout | undefined;
  if (!idempotency) {
    const store = new DbIdempotencyStore(db, { cipher: options.answerCipher });
    await store.migrate();
    idempotency = store;
    sweeper = setInterval(() => {
      store.sweep().catch((err: Error) => log(`idempotency sweep failed: ${err.message}`));
    }, SWEEP_INTERVAL_MS);
    sweeper.unref();
  }
  const policy = createEncryptionPolicy({ mode: pe.mode, routes: pe.routes, doctypes: options.doctypes });
  // The replay window survives a crash (docs/security.md#replay-window). A process on its own keeps seen JWE
  // ids in memory and refuses every token made before it started: no per-request write. Gateways sharing a
  // NATS KV set ask their database first, so neither a restart nor the loss of the NATS store forgets an id.
  let seen: SeenSet;
  let notBeforeMs: number | undefined;
  if (options.seenJwes) {
    const dbSeen = new DbSeenSet(db);
    await dbSeen.migrate();
    seen = new EverySeenSet([dbSeen, options.seenJwes]);
  } else {
    seen = new MemorySeenSet();
    notBeforeMs = Date.now();
  }
  const replay = new ReplayGuard({
    seen,
    notBeforeMs,
    windowSeconds: pe.replay_window_seconds,
    clockSkewSeconds: pe.clock_skew_seconds,
  });
  const loginThrottle = new LoginThrottle({
    store: options.loginAttempts ?? new MemoryAttemptStore(),
    ...options.loginThrottle,
  });
  return {
    keys,
    policy,
    idempotency,
    auth,
    replay,
    users: auth.users,
    loginThrottle,
    hashGate: new HashGate(),
    close: () => clearInterval(sweeper),
  };
}
