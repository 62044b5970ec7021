import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../helpers/nats-server';

/** A private PostgreSQL server started for one test file, on 127.0.0.1 and a free port. */
export interface PostgresHandle {
  /** `postgres://desk@127.0.0.1:<port>/desk`. */
  url: string;
  /** The cluster's data directory (tables under `base/`, the write-ahead log under `pg_wal/`). */
  dataDir: string;
  /** The directory of the PostgreSQL binaries that run this server (`pg_dump` of the same version). */
  binDir: string;
  /** Stops the server and removes its data directory. */
  dispose(): Promise<void>;
}

/**
 * The binaries of Debian's `postgresql` package (`/usr/lib/postgresql/<version>/bin`, newest first), or
 * `PLATFORM_POSTGRES_BIN_DIR`. Installed by scripts/ensure-system-deps.js; missing is an error, never a skip.
 */
export function postgresBinDir(): string {
  const fromEnv = process.env.PLATFORM_POSTGRES_BIN_DIR;
  if (fromEnv && existsSync(join(fromEnv, 'initdb'))) return fromEnv;
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(join(base, v, 'bin', 'initdb'))) return join(base, v, 'bin');
  throw new Error(
    'PostgreSQL is not installed: run `node scripts/ensure-system-deps.js` (Debian package postgresql).',
  );
}

/** uid/gid of the `postgres` user when running as root (PostgreSQL refuses to run as root). */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) =>
    Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** initdb into a temporary directory, then `postgres` on a free port with its socket in that directory. */
export async function startPostgres(): Promise<PostgresHandle> {
  const bin = postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'fault-pg-'));
  const user = runAs();
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  const init = spawnSync(join(bin, 'initdb'), ['-D', data, '-U', 'desk', '-A', 'trust', '--no-sync'], {
    encoding: 'utf8',
    ...user,
  });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const server: ChildProcess = spawn(
    join(bin, 'postgres'),
    ['-D', data, '-p', String(port), '-k', dir, '-h', '127.0.0.1', '-F', '-c', 'max_connections=100'],
    { stdio: 'ignore', ...user },
  );
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const admin = `postgres://desk@127.0.0.1:${port}/postgres`;
  for (let i = 0; ; i++) {
    const client = new pg.Client({ connectionString: admin });
    try {
      await client.connect();
      await client.query('CREATE DATABASE desk');
      await client.end();
      break;
    } catch (err) {
      await client.end().catch(() => {});
      if (i > 100 || server.exitCode !== null)
        throw new Error(`PostgreSQL did not start: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    url: `postgres://desk@127.0.0.1:${port}/desk`,
    dataDir: data,
    binDir: bin,
    async dispose() {
      if (server.exitCode === null) {
        server.kill('SIGINT'); // fast shutdown
        const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
