import { PlatformError } from '../http/errors';
import type { Operation } from './model';
import type { PermissionService } from './permission-service';

/**
 * The refusal of an operation: 403 `forbidden` naming the operation and the DocType (or method), never a
 * record's content, so a refusal reveals nothing a reader could not already see.
 */
export function forbidden(operation: Operation | 'call' | 'manage', target: string): PlatformError {
  const what =
    operation === 'call'
      ? `call ${target}`
      : operation === 'manage'
        ? `manage ${target}`
        : `${operation === 'read_pii' ? 'read personal data of' : operation} ${target}`;
  return new PlatformError('forbidden', `You may not ${what}.`, { status: 403 });
}

/** Throws {@link forbidden} unless a holder of `roles` may perform `operation` on `doctype`. */
export async function requirePermission(
  service: Pick<PermissionService, 'allows'>,
  roles: readonly string[],
  doctype: string,
  operation: Operation,
): Promise<void> {
  if (!(await service.allows(roles, doctype, operation))) throw forbidden(operation, doctype);
}

/** Throws {@link forbidden} unless a holder of `roles` may call the RPC method. */
export function requireMethod(
  service: Pick<PermissionService, 'mayCall'>,
  roles: readonly string[],
  method: string,
): void {
  if (!service.mayCall(roles, method)) throw forbidden('call', method);
}
