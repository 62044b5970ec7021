import type { PlatformConfig } from '../../../backend/config/schema';

/** Parsed `m serve` flags. Undefined means "not given": platform.toml and the environment decide. */
export interface ServeFlags {
  port?: number;
  host?: string;
  dataDir?: string;
  config?: string;
  mode?: string;
  apps: string[];
  /** `--pid-file`: where to write this process's PID at start (removed when it stops). */
  pidFile?: string;
  buildMissing: boolean;
  /** `--verbose`: with `--build-missing`, the build also prints the first screen's size against its budget. */
  verbose: boolean;
  /** `--watch`: reload the app folders' definitions when they change (MONOLITH, development). */
  watch: boolean;
  help: boolean;
}

/** What a mode runner returns once it is serving: how to stop it. */
export interface StartedService {
  /** Stops accepting, finishes in-flight requests, releases the store; resolves when done. */
  stop(): Promise<void>;
}

/** Starts one deployment mode from a validated configuration. */
export type ModeRunner = (config: PlatformConfig, flags: ServeFlags) => Promise<StartedService>;
