import type { InstalledApp, Logger } from '../src/contract';
import type { RpcRegistry } from './apps/rpc-registry';
import type { AttachmentStore } from './attachments/attachment-store';
import type { AuditStore } from './audit/audit-store';
import type { Bus } from './bus/bus';
import type { PlatformConfig } from './config/schema';
import type { RecordObserver } from './data/record-observer';
import type { RecordStore } from './data/records';
import type { Database } from './db/database';
import type { DocTypeRegistry } from './doctypes/registry';
import type { ServiceDirectory } from './gateway/service-directory';
import type { HistoryStore } from './history/history-store';
import type { ImportStore } from './import/import-store';
import type { ProcessMetrics } from './metrics/open-process-metrics';
import type { PermissionService } from './permissions/permission-service';
import type { ReleaseService } from './releases/release-service';
import type { SecurityContext } from './roots/security';

export type { Logger };

/**
 * Everything a process's routes and middleware share, built complete and once by that process kind's
 * composition root (backend/roots) and never changed afterwards; route and middleware factories take the
 * parts they use. Fields are added by the capability that owns them.
 */
export interface AppContext {
  readonly config: PlatformConfig;
  readonly log: Logger;
  /** The platform database (PGlite or PostgreSQL), migrated. */
  readonly db: Database;
  /** The records of every DocType (over `db` on a server, in memory in the offline mocks). */
  readonly records: RecordStore;
  /**
   * Told of every read the data API answers and every write it stores (a record's history, the audit log
   * of personal data revealed); none when absent.
   */
  readonly recordObservers?: readonly RecordObserver[];
  /** The audit log of personal data revealed (docs/operators.md#the-audit-log); in memory in the offline mocks. */
  readonly audit?: AuditStore;
  /** Each record's changes and comments (docs/http-api.md#a-records-history); in memory in the offline mocks. */
  readonly history?: HistoryStore;
  /** This process's metrics for `GET /metrics` (docs/operators.md#metrics); absent in the offline mocks. */
  readonly metrics?: ProcessMetrics;
  /**
   * The state of CSV imports (docs/desk.md#importing-a-csv-file): in the database on a server, so a stopped
   * import resumes without creating a row twice; absent where imports are not offered.
   */
  readonly imports?: ImportStore;
  /**
   * The files attached to this process's records (docs/http-api.md#a-records-attachments): rows in the
   * database, content under `<data_dir>/attachments` on a server; in memory in the offline mocks.
   */
  readonly attachments?: AttachmentStore;
  /** The apps this process installs, in `tool.platform.apps` order. */
  readonly apps: InstalledApp[];
  /** The DocTypes of the installed apps. */
  readonly doctypes: DocTypeRegistry;
  /** The RPC methods of the installed apps. */
  readonly rpc: RpcRegistry;
  /**
   * Who may do what with this process's DocTypes and RPC methods: the apps' declared rules, replaced per
   * DocType by rules stored at run time (docs/permissions.md).
   */
  readonly permissions: PermissionService;
  /** Which service owns which DocType and where its remote and APIs live. */
  readonly directory: ServiceDirectory;
  /**
   * Releases of the installed apps' UI remotes (docs/mfe-teams.md#releases): MONOLITH only, absent where
   * the directory is not the MONOLITH scan.
   */
  readonly releases?: ReleaseService;
  /**
   * Base URL of this process as browsers reach it (`server.public_url`, else `http://<host>:<port>` with the
   * port actually bound); the base of every manifest URL.
   */
  readonly publicUrl: string;
  /** Folder of the installed apps (`<app>/static/mfe/` holds each UI remote). */
  readonly appsDir: string;
  /** Build output folder (`<distDir>/shell/index.html` is the Desk shell). */
  readonly distDir: string;
  /** Folder of the shell's `index.html` template, used when no build exists. */
  readonly publicDir: string;
  /** Encryption keys and policy, the idempotency store and the auth store (users, sessions, API keys). */
  readonly security: Readonly<SecurityContext>;
  /**
   * The message bus: in-process in MONOLITH (the embedded default), NATS in MACROSERVICE processes
   * (backend/bus): subjects for broadcasts and KV buckets for state shared between processes.
   */
  readonly bus: Bus;
  /** Releases what the root opened for this process (database, bus, watchers), in reverse order; idempotent. */
  close(): Promise<void>;
}
