/** Renders its children only when the signed-in user may perform an operation on a DocType. */
import type { ReactNode } from 'react';
import { usePermissions } from '../hooks/use-permissions';
import type { DeskOperation } from '../platform/permissions';

/**
 * Wraps an action (a Delete button, a New button) the user may not be allowed to use: nothing is rendered
 * until whoami says the operation is permitted (docs/permissions.md#who-am-i). The server enforces it either way.
 *
 * @example
 * <IfPermitted docType="stock.Item" operation="delete"><button>Delete</button></IfPermitted>
 */
export function IfPermitted({
  docType,
  operation,
  children,
}: {
  docType: string;
  operation: DeskOperation;
  children: ReactNode;
}): React.JSX.Element | null {
  return usePermissions().can(docType, operation) ? <>{children}</> : null;
}
