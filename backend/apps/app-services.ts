import type { AppRecords, AppServices, Logger, Principal } from '../../src/contract';
import type { DocTypeDefinition } from '../../src/contract/doctype';
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
}

/**
 * The records of one app's own DocTypes: a DocType of another app (or none) is refused with
 * `unknown_doctype`, whatever is installed in this process.
 */
export function appRecordsOf(deps: Pick<AppServiceDeps, 'records' | 'doctypes'>, app: string): AppRecords {
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
    get: (doctype, name) => deps.records.get(own(doctype), name),
    count: (doctype, equals) => deps.records.count(own(doctype).name, equals),
    sum: (doctype, fields, options) => deps.records.sum(own(doctype).name, fields, options),
  };
}

/**
 * The services app code of `app` receives for one call by `principal` (docs/mfe-teams.md#rpc-methods): its
 * own records, the caller, permission checks under the rules in force, and the log prefixed with its name.
 */
export function appServicesFor(deps: AppServiceDeps, app: string, principal?: Principal): AppServices {
  return {
    app,
    records: appRecordsOf(deps, app),
    principal,
    can: async (operation, doctype) =>
      principal !== undefined && deps.permissions.allows(rolesOf(principal), doctype, operation),
    log: (line) => deps.log(`[${app}] ${line}`),
  };
}
