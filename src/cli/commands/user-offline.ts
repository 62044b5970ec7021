import { AuthService } from '../../../backend/auth/auth-service';
import { DbAuthStore } from '../../../backend/auth/db-auth-store';
import { ScryptPasswordHasher } from '../../../backend/auth/passwords';
import { loadConfig } from '../../../backend/config/load-config';
import { claimDataDir, requireExistingDatabase } from '../../../backend/data-dir/data-dir';
import { openDatabase } from '../../../backend/db/open-database';
import type { UserAdmin } from './user-admin';

/** Where a stopped server keeps its state (as for `m serve`). */
export interface OfflineOptions {
  /** `--data-dir`; default `PLATFORM_DATA_DIR`, else `.platform`. */
  dataDir?: string;
  /** `--config`: the platform.toml to read. */
  config?: string;
  /**
   * The database must exist already (every action but `add`, which may prepare a server's first user
   * before its first start): a mistyped directory is refused instead of given an empty database.
   */
  existing?: boolean;
}

/**
 * Opens the users of a stopped server: its database (`server.database_url`, else `<data_dir>`'s PGlite),
 * through the same auth service the server uses, so passwords are hashed and credentials revoked alike.
 * PGlite allows one process at a time: with the server running, use `--url` instead.
 */
export async function openOfflineUserAdmin(options: OfflineOptions): Promise<UserAdmin> {
  const config = loadConfig({ file: options.config, overrides: { 'server.data_dir': options.dataDir } });
  if (options.existing) requireExistingDatabase(config.server.data_dir, config.server.database_url);
  // The embedded database allows one process: with the server running, its directory is refused
  // (data_dir_locked) rather than opened beside it, where both would write and one's writes be lost.
  const owned = config.server.database_url ? undefined : await claimDataDir(config.server.data_dir, 'm user');
  let db: Awaited<ReturnType<typeof openDatabase>>;
  try {
    db = await openDatabase({
      dataDir: config.server.data_dir,
      databaseUrl: config.server.database_url,
      optimizeWasm: config.server.pglite_optimize,
    });
  } catch (err) {
    owned?.release();
    throw err;
  }
  const close = async () => {
    try {
      await db.close();
    } finally {
      owned?.release();
    }
  };
  try {
    const auth = new AuthService({
      store: new DbAuthStore(db),
      passwords: new ScryptPasswordHasher(),
      sessionTtlMs: config.security.session.ttl_seconds * 1000,
    });
    await auth.migrate();
    const users = auth.users;
    return {
      add: (name, password, roles) => users.addUser(name, password, roles),
      list: () => users.listUsers(),
      setRoles: (name, roles) => users.setRoles(name, roles),
      setPassword: (name, password) => users.setPassword(name, password),
      disable: (name) => users.disableUser(name),
      enable: (name) => users.enableUser(name),
      // The rules the server would enforce: the installed apps' declared ones and those stored at run time.
      knownRoles: async () => {
        const { loadInstalledApps } = await import('../../../backend/apps');
        const { declarationsOf } = await import('../../../backend/permissions/from-apps');
        const { PermissionService } = await import('../../../backend/permissions/permission-service');
        const { DbPermissionRuleStore } = await import('../../../backend/permissions/rule-store');
        const { rolesWorthGiving } = await import('../../../backend/permissions/model');
        const rules = new PermissionService({
          declarations: declarationsOf(await loadInstalledApps(config.apps)),
          store: new DbPermissionRuleStore(db),
        });
        await rules.init();
        return rolesWorthGiving(await rules.roles());
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
