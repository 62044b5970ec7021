import type { Logger, Principal } from './caller';
import type { Operation } from './permissions';
import type { AppRecords } from './records';

/**
 * What the platform gives app code (an RPC method's handler): the app's own records, the caller, permission
 * checks and a logger. Deliberately small: app code never sees the process (its database, configuration,
 * keys or other apps), so the same handler runs in MONOLITH, in a MACROSERVICE service and over the offline
 * mocks' in-memory records.
 */
export interface AppServices {
  /** The app's name (the first segment of its DocTypes and methods). */
  readonly app: string;
  /** The records of the app's own DocTypes. */
  readonly records: AppRecords;
  /** Who called; undefined only where no authentication runs (a unit test calling a handler directly). */
  readonly principal?: Principal;
  /**
   * Whether the caller may perform `operation` on `doctype` under the rules in force (docs/permissions.md):
   * a System Manager may do everything; no caller may do nothing.
   */
  can(operation: Operation, doctype: string): Promise<boolean>;
  /** The process's line logger, prefixed with the app's name; never give it personal data. */
  readonly log: Logger;
}
