import { parseArgs } from 'node:util';
import type { Command } from '../command';
import type { UserAdmin } from './user-admin';
import { readPassword } from './user-password';
import { RemoteUserAdmin } from './user-remote';

/** Exit codes of `m user`: 0 done, 1 the operation failed, 2 usage error, 78 invalid configuration. */
export const USER_EXIT = { ok: 0, failed: 1, usage: 2, config: 78 } as const;

const HELP = `Usage: m user <add | list | roles | passwd | disable | enable> [options]

Manages the users who sign in to the Desk and the roles they hold.

  add <name> --role <role>... [--password-env VAR]   Creates a user with roles.
  list                                               Lists users, their roles and whether enabled.
  roles <name> <role>...                             Replaces a user's roles.
  passwd <name> [--password-env VAR]                 Sets a new password; revokes the user's sessions,
                                                     bearer tokens and API keys.
  disable <name>                                     Disables the user and revokes the same.
  enable <name>                                      Lets a disabled user sign in again.

Without --password-env the password is read from standard input (hidden on a terminal).

Where: by default the data directory of a stopped server (--data-dir, PLATFORM_DATA_DIR, default
.platform). With --url (or PLATFORM_URL) the API of a running server, as an administrator whose API key is
in PLATFORM_API_KEY as <api_key>:<api_secret>.

Options:
  --role <role>          A role to give (repeat for several; add)
  --password-env <VAR>   Read the password from this environment variable
  --data-dir <dir>       State directory of a stopped server
  --config <file>        platform.toml to read (default ./platform.toml when present)
  --url <base>           A running server, e.g. http://127.0.0.1:8000
  --json                 list: print JSON
  -h, --help             This help

Exit codes: 0 done, 1 failed, 2 usage error, 78 invalid configuration.`;

/** The parsed command line of `m user`. */
export interface UserFlags {
  action: 'add' | 'list' | 'roles' | 'passwd' | 'disable' | 'enable';
  name?: string;
  roles: string[];
  passwordEnv?: string;
  dataDir?: string;
  config?: string;
  url?: string;
  json: boolean;
}

const ACTIONS = new Set(['add', 'list', 'roles', 'passwd', 'disable', 'enable']);

/** Parses `m user` arguments; throws `Error` with a usage message. */
export function parseUserFlags(argv: string[], env: NodeJS.ProcessEnv = process.env): UserFlags | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      role: { type: 'string', multiple: true },
      'password-env': { type: 'string' },
      'data-dir': { type: 'string' },
      config: { type: 'string' },
      url: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return 'help';
  const [action, name, ...rest] = positionals;
  if (!action || !ACTIONS.has(action))
    throw new Error('expected add, list, roles, passwd, disable or enable');
  if (action !== 'list' && !name) throw new Error(`"${action}" needs a user name`);
  if (action === 'list' && name) throw new Error('"list" takes no user name');
  if (action !== 'roles' && rest.length > 0) throw new Error(`unexpected argument "${rest[0]}"`);
  const roles = action === 'roles' ? rest : (values.role ?? []);
  if (action === 'add' && roles.length === 0) throw new Error('"add" needs at least one --role');
  return {
    action: action as UserFlags['action'],
    name,
    roles,
    passwordEnv: values['password-env'],
    dataDir: values['data-dir'],
    config: values.config,
    url: values.url ?? env.PLATFORM_URL,
    json: values.json ?? false,
  };
}

async function password(flags: UserFlags, env: NodeJS.ProcessEnv): Promise<string> {
  if (flags.passwordEnv) {
    const value = env[flags.passwordEnv];
    if (!value) throw Object.assign(new Error(`${flags.passwordEnv} is not set`), { code: 'usage' });
    return value;
  }
  return readPassword(`Password for ${flags.name}: `);
}

/** Opens the admin the flags point at: a running server's API, else the data directory. */
async function openAdmin(flags: UserFlags, env: NodeJS.ProcessEnv): Promise<UserAdmin> {
  if (flags.url) {
    const key = env.PLATFORM_API_KEY;
    if (!key?.includes(':')) {
      throw Object.assign(new Error('PLATFORM_API_KEY must hold <api_key>:<api_secret> with --url'), {
        code: 'usage',
      });
    }
    return new RemoteUserAdmin(flags.url, `token ${key}`);
  }
  const { openOfflineUserAdmin } = await import('./user-offline');
  return openOfflineUserAdmin({
    dataDir: flags.dataDir,
    config: flags.config,
    existing: flags.action !== 'add',
  });
}

/**
 * Warns (on standard error; the change stands) about given roles no permission rule names: a typo such as
 * "Sales user" grants nothing, silently. Any name may be given ahead of a rule that will name it, so this
 * does not refuse; a server too old to list its roles is not asked twice.
 */
async function warnUnknownRoles(admin: UserAdmin, given: readonly string[]): Promise<void> {
  const known = await admin.knownRoles().catch(() => undefined);
  if (!known) return;
  const unknown = given.filter((role) => !known.includes(role));
  if (unknown.length === 0) return;
  const quoted = unknown.map((r) => `"${r}"`).join(', ');
  console.error(
    `m user: warning: no permission rule names ${quoted}, so it grants nothing until one does. Roles the rules name: ${known.join(', ')}.`,
  );
}

/** Runs one parsed `m user` action, printing its result; resolves to the exit code. */
export async function runUser(flags: UserFlags, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let admin: UserAdmin | undefined;
  try {
    admin = await openAdmin(flags, env);
    const name = flags.name ?? '';
    switch (flags.action) {
      case 'add':
        await admin.add(name, await password(flags, env), flags.roles);
        console.log(`added ${name} with roles: ${flags.roles.join(', ')}`);
        await warnUnknownRoles(admin, flags.roles);
        break;
      case 'list': {
        const users = await admin.list();
        if (flags.json) console.log(JSON.stringify(users, null, 2));
        else
          for (const u of users)
            console.log(`${u.name}\t${u.enabled ? 'enabled' : 'disabled'}\t${u.roles.join(', ')}`);
        break;
      }
      case 'roles':
        await admin.setRoles(name, flags.roles);
        console.log(`${name} now holds: ${flags.roles.join(', ') || '(no roles)'}`);
        await warnUnknownRoles(admin, flags.roles);
        break;
      case 'passwd':
        await admin.setPassword(name, await password(flags, env));
        console.log(`password of ${name} changed; their sessions, tokens and API keys are revoked`);
        break;
      case 'disable':
        await admin.disable(name);
        console.log(`${name} disabled; their sessions, tokens and API keys are revoked`);
        break;
      case 'enable':
        await admin.enable(name);
        console.log(`${name} enabled; they sign in with their password`);
        break;
    }
    return USER_EXIT.ok;
  } catch (err) {
    const code = (err as { code?: string }).code;
    console.error(`m user ${flags.action}: ${(err as Error).message}`);
    if (code === 'usage') return USER_EXIT.usage;
    return code === 'config_invalid' ? USER_EXIT.config : USER_EXIT.failed;
  } finally {
    await admin?.close();
  }
}

/** `m user add | list | roles | passwd | disable | enable`. */
export const userCommand: Command = {
  async run(argv) {
    let flags: UserFlags | 'help';
    try {
      flags = parseUserFlags(argv);
    } catch (err) {
      console.error(`m user: ${(err as Error).message}\n\n${HELP}`);
      return USER_EXIT.usage;
    }
    if (flags === 'help') {
      console.log(HELP);
      return USER_EXIT.ok;
    }
    return runUser(flags);
  },
};
