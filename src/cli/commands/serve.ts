import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CONFIG_ENV_VARS, loadConfig, OTHER_ENV_VARS } from '../../../backend/config/load-config';
import type { PlatformConfig } from '../../../backend/config/schema';
import { isDiskFull } from '../../../backend/http/disk-full';
import { ROOT_DIR } from '../../../backend/roots/context';
import type { PlatformMode } from '../../contract';
import type { Command } from '../command';
import type { ModeRunner, ServeFlags, StartedService } from '../serve/mode-runner';
import { letYoungGenerationGrow } from '../serve/young-generation';

/**
 * Exit codes of `m serve` (a public API, like k6's): 0 clean shutdown after SIGINT/SIGTERM (or `--help`),
 * 1 the start failed (port in use, database unreachable, unknown app), 2 usage error (bad flag),
 * 74 no space left on the device of the data directory (EX_IOERR of sysexits.h), 78 invalid configuration
 * (EX_CONFIG; the message names each bad key).
 */
export const SERVE_EXIT = { ok: 0, failed: 1, usage: 2, storage: 74, config: 78 } as const;

export type { ModeRunner, ServeFlags, StartedService };

/**
 * The deployment modes `m serve` can run, by `tool.platform.mode`. A mode registers one runner; the flag
 * parsing, configuration, build step and signal handling around it are shared.
 */
export const MODE_RUNNERS: Partial<Record<PlatformMode, () => Promise<ModeRunner>>> = {
  monolith: async () => (await import('../serve/monolith')).runMonolith,
  macroservice: async () => (await import('../serve/macroservice')).runMacroservice,
};

const HELP = `Usage: m serve [options]

Starts the backend and the Desk (MONOLITH by default) and prints the Desk URL.

Options:
  --port <n>         Port to listen on (PORT, default 8000; 0 picks a free one)
  --host <addr>      Address to bind (HOST, default 127.0.0.1)
  --data-dir <dir>   State directory: database, keys (PLATFORM_DATA_DIR, default .platform)
  --config <file>    platform.toml to read (default ./platform.toml when present)
  --mode <mode>      monolith | macroservice (PLATFORM_MODE)
  --app <name|dir>   An app to install: a built-in name or an app folder; repeat for several
                     (PLATFORM_APPS, default crm, stock and support). With --mode macroservice: no --app runs a
                     gateway, --app <name|dir> one service process
  --pid-file <file>  Write the server's PID there before it starts (removed when it stops)
  --build-missing    Build the shell and app remotes first when they are missing (npm start), printing
                     a line per build step
  --verbose          With --build-missing: also print the first screen's JavaScript size against its
                     budget (docs/performance.md#the-budget)
  --watch            MONOLITH: when an app folder's definitions change (a DocType, an RPC method), load
                     them again and migrate, without a restart (npm start; not for production)
  -h, --help         This help

Environment overrides (flags win over them, they win over platform.toml):
${CONFIG_ENV_VARS.map(({ env, key }) => `  ${env.padEnd(32)} ${key}`).join('\n')}

Other environment variables:
${OTHER_ENV_VARS.map(({ env, use }) => `  ${env.padEnd(32)} ${use}`).join('\n')}

One server per data directory: a second one on the same directory exits 1 naming the first one's PID.

Exit codes: 0 stopped cleanly by SIGINT/SIGTERM, 1 start failed, 2 usage error, 74 no space left for the
data directory, 78 invalid configuration.`;

/** Parses `m serve` arguments; throws `Error` with a usage message on a bad flag. */
export function parseServeFlags(argv: string[]): ServeFlags {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'data-dir': { type: 'string' },
      config: { type: 'string' },
      mode: { type: 'string' },
      app: { type: 'string', multiple: true },
      'pid-file': { type: 'string' },
      'build-missing': { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      watch: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.port !== undefined && !/^\d{1,5}$/.test(values.port)) {
    throw new Error('--port must be a number from 0 to 65535');
  }
  return {
    port: values.port === undefined ? undefined : Number(values.port),
    host: values.host,
    dataDir: values['data-dir'],
    config: values.config,
    mode: values.mode?.toLowerCase(),
    apps: (values.app ?? [])
      .flatMap((a) => a.split(','))
      .map((a) => a.trim())
      .filter(Boolean),
    pidFile: values['pid-file'],
    buildMissing: values['build-missing'] ?? false,
    verbose: values.verbose ?? false,
    watch: values.watch ?? false,
    help: values.help ?? false,
  };
}

/** The flag behind each override of {@link flagOverrides}, for configuration error messages. */
export const FLAG_SOURCES: Record<string, string> = {
  'server.port': 'flag --port',
  'server.host': 'flag --host',
  'server.data_dir': 'flag --data-dir',
  mode: 'flag --mode',
  apps: 'flag --app',
};

/**
 * Writes the PID file atomically (a reader never sees it half-written) and returns how to remove it; it is
 * removed only when it still holds this process's PID.
 */
export function writePidFile(file: string): () => void {
  const path = resolve(file);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${process.pid}\n`);
  renameSync(tmp, path);
  return () => {
    try {
      if (readPid(path) === process.pid) rmSync(path, { force: true });
    } catch {
      // already gone
    }
  };
}

function readPid(path: string): number {
  return Number(readFileSync(path, 'utf8').trim());
}

/** The flags as `[tool.platform]` overrides (dotted TOML paths); they win over file and environment. */
export function flagOverrides(flags: ServeFlags): Record<string, unknown> {
  return {
    'server.port': flags.port,
    'server.host': flags.host,
    'server.data_dir': flags.dataDir,
    mode: flags.mode,
    apps: flags.apps.length > 0 ? flags.apps : undefined,
  };
}

const ROOT = ROOT_DIR;

/**
 * `--build-missing`: runs `node scripts/build.js --missing`, which builds the shell and the app remotes whose
 * output is missing or older than their sources, a line per step (`--verbose`: and the size budget). A failed
 * build is a warning: the backend still serves the data API and the Desk template.
 */
function buildIfMissing(verbose: boolean): void {
  const script = join(ROOT, 'scripts', 'build.js');
  if (!existsSync(script)) return;
  const args = [script, '--missing', ...(verbose ? ['--verbose'] : [])];
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) console.error('m serve: the build failed; serving without it.');
}

/** Resolves on the first SIGINT or SIGTERM. */
function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** `m serve`: the backend and the Desk. */
export const serveCommand: Command = {
  async run(argv) {
    let flags: ServeFlags;
    try {
      flags = parseServeFlags(argv);
    } catch (err) {
      console.error(`m serve: ${(err as Error).message}\n\n${HELP}`);
      return SERVE_EXIT.usage;
    }
    if (flags.help) {
      console.log(HELP);
      return SERVE_EXIT.ok;
    }
    let config: PlatformConfig;
    try {
      config = loadConfig({
        file: flags.config,
        overrides: flagOverrides(flags),
        overrideSources: FLAG_SOURCES,
        warn: (message) => console.error(`m serve: warning: ${message}`),
      });
    } catch (err) {
      console.error(`m serve: ${(err as Error).message}`);
      return (err as { code?: string }).code === 'config_invalid' ? SERVE_EXIT.config : SERVE_EXIT.failed;
    }
    const load = MODE_RUNNERS[config.mode];
    if (!load) {
      console.error(`m serve: mode "${config.mode}" is not available in this build.`);
      return SERVE_EXIT.failed;
    }
    if (flags.buildMissing) buildIfMissing(flags.verbose);
    // Listen for signals before starting, so a signal during the start still shuts down cleanly.
    const signal = untilSignal();
    // The PID file exists before the Desk URL is printed, so whoever waits for that line can read it.
    let removePidFile = () => {};
    if (flags.pidFile) {
      try {
        removePidFile = writePidFile(flags.pidFile);
      } catch (err) {
        console.error(`m serve: could not write --pid-file: ${(err as Error).message}`);
        return SERVE_EXIT.failed;
      }
    }
    let service: StartedService;
    try {
      service = await (await load())(config, flags);
    } catch (err) {
      removePidFile();
      if (isDiskFull(err)) {
        console.error(
          `m serve: could not start: the device holding the data directory ${resolve(config.server.data_dir)} has no space left; free some space there (or point --data-dir elsewhere) and start again.`,
        );
        return SERVE_EXIT.storage;
      }
      console.error(`m serve: could not start: ${(err as Error).message}`);
      // An unsafe setting found while starting (the default password off loopback) is a configuration error.
      return (err as { code?: string }).code === 'config_invalid' ? SERVE_EXIT.config : SERVE_EXIT.failed;
    }
    letYoungGenerationGrow();
    const received = await signal;
    console.log(`m serve: ${received} received, shutting down ...`);
    await service.stop();
    removePidFile();
    console.log('m serve: stopped.');
    // Everything this command opened is closed; a stray timer elsewhere must not keep the process alive.
    setTimeout(() => process.exit(process.exitCode ?? SERVE_EXIT.ok), 1000).unref();
    return SERVE_EXIT.ok;
  },
};
