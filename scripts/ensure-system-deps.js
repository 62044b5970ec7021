#!/usr/bin/env node
// Makes sure the system packages the tests drive are present: Debian's `chromium` (end-to-end tests),
// `nats-server` (MACROSERVICE tests) and `postgresql` (the fault tests run several gateways on one PostgreSQL
// server; its binaries live under /usr/lib/postgresql/<version>/bin, which is not on PATH) and `strace` (the
// durability fault test counts the server's syncs). When one is missing and we run as root, it is installed with apt-get;
// otherwise the run stops with a message naming the package. Nothing is skipped silently.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Each system dependency: the binary the tests look for and the Debian package that provides it. */
const DEPENDENCIES = [
  { binary: 'chromium', paths: ['/usr/bin/chromium'], pkg: 'chromium', env: 'PLATFORM_CHROMIUM_PATH' },
  {
    binary: 'nats-server',
    paths: ['/usr/bin/nats-server', '/usr/sbin/nats-server'],
    pkg: 'nats-server',
    env: 'PLATFORM_NATS_SERVER_PATH',
  },
  {
    binary: 'initdb',
    paths: postgresBinaries('initdb'),
    pkg: 'postgresql',
    env: 'PLATFORM_POSTGRES_BIN_DIR',
  },
  // The durability fault test watches `m serve`'s fsync and fdatasync calls with it.
  { binary: 'strace', paths: ['/usr/bin/strace'], pkg: 'strace', env: 'PLATFORM_STRACE_PATH' },
];

/** `/usr/lib/postgresql/<version>/bin/<name>` for every installed version, newest first. */
function postgresBinaries(name) {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return [];
  return readdirSync(base)
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => join(base, version, 'bin', name));
}

function locate(dep) {
  const fromEnv = process.env[dep.env];
  if (dep.pkg === 'postgresql' && fromEnv && existsSync(join(fromEnv, dep.binary))) return fromEnv;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  if (dep.pkg === 'postgresql') return postgresBinaries(dep.binary).find((p) => existsSync(p));
  for (const p of dep.paths) if (existsSync(p)) return p;
  const which = spawnSync('which', [dep.binary], { encoding: 'utf8' });
  return which.status === 0 ? which.stdout.trim() : undefined;
}

const missing = DEPENDENCIES.filter((dep) => !locate(dep));
if (missing.length > 0) {
  const pkgs = missing.map((d) => d.pkg);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    console.error(
      `Missing system packages: ${pkgs.join(', ')}. Install them with: sudo apt-get install -y ${pkgs.join(' ')}\n` +
        `(or point ${missing.map((d) => d.env).join(' / ')} at the binaries).`,
    );
    process.exit(1);
  }
  console.log(`Installing system packages: ${pkgs.join(', ')} (apt-get)...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...pkgs], {
    stdio: 'inherit',
    env,
  });
  const still = missing.filter((dep) => !locate(dep));
  if (still.length > 0) {
    console.error(`apt-get finished but these are still missing: ${still.map((d) => d.binary).join(', ')}`);
    process.exit(1);
  }
}
