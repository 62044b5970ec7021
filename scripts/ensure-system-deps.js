#!/usr/bin/env node
// Makes sure the system packages the tests drive are present: Debian's `chromium` (end-to-end tests) and
// `nats-server` (MACROSERVICE tests). When one is missing and we run as root, it is installed with apt-get;
// otherwise the run stops with a message naming the package. Nothing is skipped silently.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Each system dependency: the binary the tests look for and the Debian package that provides it. */
const DEPENDENCIES = [
  { binary: 'chromium', paths: ['/usr/bin/chromium'], pkg: 'chromium', env: 'PLATFORM_CHROMIUM_PATH' },
  {
    binary: 'nats-server',
    paths: ['/usr/bin/nats-server', '/usr/sbin/nats-server'],
    pkg: 'nats-server',
    env: 'PLATFORM_NATS_SERVER_PATH',
  },
];

function locate(dep) {
  const fromEnv = process.env[dep.env];
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
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
