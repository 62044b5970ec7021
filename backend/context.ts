import type { RpcRegistry } from './apps/rpc-registry';
import type { InstalledApp } from './apps/types';
import type { Bus } from './bus/bus';
import type { PlatformConfig } from './config/schema';
import type { RecordStore } from './data/records';
import type { Database } from './db/database';
import type { DocTypeRegistry } from './doctypes/registry';
import type { ServiceDirectory } from './gateway/service-directory';
import type { SecurityContext } from './security/security-context';

/** A line logger; never given request bodies, secrets or personal data. */
export type Logger = (line: string) => void;

/**
 * Everything the app's routes and middleware share, built once at start (`createContext`) and passed
 * to every route and middleware factory. Fields are added by the capability that owns them.
 */
export interface AppContext {
  config: PlatformConfig;
  log: Logger;
  /** The platform database (PGlite or PostgreSQL), migrated. */
  db: Database;
  /** The records of every DocType (over `db` on a server, in memory in the offline mocks). */
  records: RecordStore;
  /** The apps this process installs, in `tool.platform.apps` order. */
  apps: InstalledApp[];
  /** The DocTypes of the installed apps. */
  doctypes: DocTypeRegistry;
  /** The RPC methods of the installed apps. */
  rpc: RpcRegistry;
  /** Which service owns which DocType and where its remote and APIs live. */
  directory: ServiceDirectory;
  /**
   * Base URL of this process as browsers reach it (`server.public_url`, else `http://<host>:<port>`); the
   * base of every manifest URL. `m serve` fills in the real port after binding port 0.
   */
  publicUrl: string;
  /** Folder of the installed apps (`<app>/static/mfe/` holds each UI remote). */
  appsDir: string;
  /** Build output folder (`<distDir>/shell/index.html` is the Desk shell). */
  distDir: string;
  /** Folder of the shell's `index.html` template, used when no build exists. */
  publicDir: string;
  /** Encryption keys and policy, the idempotency store and the auth store (users, sessions, API keys). */
  security: SecurityContext;
  /**
   * The message bus: in-process in MONOLITH (the embedded default), NATS in MACROSERVICE processes
   * (backend/bus): subjects for broadcasts and KV buckets for state shared between processes.
   */
  bus: Bus;
  /** Releases what `createContext` opened (database, directory watchers), in reverse order; idempotent. */
  close(): Promise<void>;
}
