import type { AppRecords, AppServices, DocRecord, Logger, Principal } from '../../src/contract';
import type { DocTypeDefinition } from '../../src/contract/doctype';
import { isFlagged } from '../../src/protocol';
import { notifyRead, type RecordObserver, type RevealRoute } from '../data/record-observer';
import type { RecordStore } from '../data/records';
import type { DocTypeRegistry } from '../doctypes/registry';
import { PlatformError } from '../http/errors';
import type { PermissionService } from '../permissions/permission-service';
import { rolesOf } from '../permissions/routes';

/** What {@link appServicesFor} builds the services from: the process's stores, never the whole context. */
export interface AppServiceDeps {
  readonly records: RecordStore;
  readonly doctypes: DocTypeRegistry;
  readonly permissions: Pick<PermissionService, 'allows'>;
  readonly log: Logger;
  /** Told of every flagged value app code reads during a call (the audit of reveals); none by default. */
  readonly recordObservers?: readonly RecordObserver[];
}

/** The call app code runs for: where it came in and from where, for the reveals it makes. */
export interface AppCall {
  /** The route the caller used (`POST /api/method/<name>`), as the audit log names it. */
  readonly route: RevealRoute;
  /** The caller's address as the middleware chain resolved it, when known. */
  readonly clientAddress?: string;
}

/** Who reads through app code: the caller and their call, and whom to tell of what it revealed. */
interface Reader {
  readonly principal: Principal;
  readonly call: AppCall;
  readonly observers: readonly RecordObserver[];
}

/**
 * Tells the observers that `record`'s flagged values were decrypted for `reader` (one audit entry naming
 * those that hold a value). App code is trusted service code and gets them in clear, but it acts for the
 * caller and may hand them on, so the read counts as a reveal to them, audited before app code sees it; if
 * the entry cannot be written, the read fails (docs/permissions.md#reveals-are-audited).
 */
async function auditRead(reader: Reader, doctype: DocTypeDefinition, record: DocRecord): Promise<void> {
  const revealed = doctype.fields
    .filter((f) => isFlagged(f) && record[f.name] !== undefined && record[f.name] !== null)
    .map((f) => f.name);
  if (revealed.length === 0) return;
  await notifyRead(reader.observers, {
    doctype,
    names: [record.name],
    route: reader.call.route,
    principal: reader.principal,
    revealed,
    clientAddress: reader.call.clientAddress,
  });
}

/**
 * The records of one app's own DocTypes: a DocType of another app (or none) is refused with
 * `unknown_doctype`, whatever is installed in this process. Given the `reader` app code runs for, each
 * record `get` returns with flagged values is audited as revealed to them.
 */
export function appRecordsOf(
  deps: Pick<AppServiceDeps, 'records' | 'doctypes'>,
  app: string,
  reader?: Reader,
): AppRecords {
  const own = (doctype: string): DocTypeDefinition => {
    const definition = doctype.startsWith(`${app}.`) ? deps.doctypes.get(doctype) : undefined;
    if (!definition) {
      throw new PlatformError('unknown_doctype', `${doctype} is not a DocType of app "${app}".`, {
        status: 500,
      });
    }
    return definition;
  };
  return {
    get: async (doctype, name) => {
      const definition = own(doctype);
      const record = await deps.records.get(definition, name);
      if (record && reader) await auditRead(reader, definition, record);
      return record;
    },
    count: (doctype, equals) => deps.records.count(own(doctype).name, equals),
    sum: (doctype, fields, options) => deps.records.sum(own(doctype).name, fields, options),
  };
}

/**
 * The services app code of `app` receives for one call by `principal` (docs/mfe-teams.md#rpc-methods): its
 * own records, the caller, permission checks under the rules in force, and the log prefixed with its name.
 * With the `call` (its route and client address), what app code decrypts for the principal through
 * `records.get` is told to the record observers, as the data routes' reads are: no decryption on behalf of
 * a person or API key goes unaudited.
 */
export function appServicesFor(
  deps: AppServiceDeps,
  app: string,
  principal?: Principal,
  call?: AppCall,
): AppServices {
  const observers = deps.recordObservers ?? [];
  const reader = principal && call && observers.length > 0 ? { principal, call, observers } : undefined;
  return {
    app,
    records: appRecordsOf(deps, app, reader),
    principal,
    can: async (operation, doctype) =>
      principal !== undefined && deps.permissions.allows(rolesOf(principal), doctype, operation),
    log: (line) => deps.log(`[${app}] ${line}`),
  };
}
