/**
 * A throwaway PostgreSQL server for the benchmarks that compare PGlite with a real server: `initdb` into a
 * temporary directory, `postgres` on a free port of 127.0.0.1, removed on `stop()`. Postgres refuses to run
 * as root, so under root the commands run as the `postgres` user. Returns `undefined` (and the benchmark
 * prints why it skipped the rows) when no PostgreSQL binaries are installed.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../test/e2e/support/desk-target';

/** A running server. */
export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string;
  /** A URL to a new, empty database on this server. */
  createDatabase(name: string): string;
  stop(): Promise<void>;
}

/** The directory holding `initdb` and `postgres`: `$PG_BIN`, else the newest Debian install. */
function findBinaries(): string | undefined {
  if (process.env.PG_BIN && existsSync(join(process.env.PG_BIN, 'postgres'))) return process.env.PG_BIN;
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(join(base, v, 'bin', 'postgres'))) return join(base, v, 'bin');
  return undefined;
}

/** Starts a server, or returns `undefined` when PostgreSQL is not installed. */
export async function startPostgres(): Promise<PostgresServer | undefined> {
  const bin = findBinaries();
  if (!bin) return undefined;
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) =>
    asRoot ? (['runuser', ['-u', 'postgres', '--', cmd, ...args]] as const) : ([cmd, args] as const);
  const dir = mkdtempSync(join(tmpdir(), 'bench-pg-'));
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  const data = join(dir, 'data');
  const [initCmd, initArgs] = run(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres']);
  execFileSync(initCmd, [...initArgs], { stdio: 'ignore' });
  const port = await freePort();
  const [pgCmd, pgArgs] = run(join(bin, 'postgres'), [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
  ]);
  const child = spawn(pgCmd, [...pgArgs], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const { default: pg } = await import('pg');
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      break;
    } catch {
      await client.end().catch(() => {});
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`postgres did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const psql = (sql: string) => {
    const [cmd, args] = run(join(bin, 'psql'), [
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-U',
      'postgres',
      '-c',
      sql,
    ]);
    execFileSync(cmd, [...args], { stdio: 'ignore' });
  };
  return {
    url,
    createDatabase(name) {
      psql(`CREATE DATABASE ${name}`);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      // pg_ctl, not a signal to the child: under root the child is `runuser`, which does not pass it on.
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        const [cmd, args] = run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', 'stop']);
        execFileSync(cmd, [...args], { stdio: 'ignore' });
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
