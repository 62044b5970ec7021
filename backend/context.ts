import type { PlatformConfig } from './config/schema';

/** A line logger; never given request bodies, secrets or personal data. */
export type Logger = (line: string) => void;

/**
 * Everything the app's routes and middleware share, built once at start (`createContext`) and passed
 * to every route and middleware factory. Fields are added by the capability that owns them.
 */
export interface AppContext {
  config: PlatformConfig;
  log: Logger;
}
