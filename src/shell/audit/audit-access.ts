/**
 * Who the Desk shows the audit of reveals to (docs/permissions.md#reveals-are-audited): the audit API
 * answers System Managers only, and in MONOLITH only (in MACROSERVICE each service keeps its own log, which
 * the gateway does not serve), so nobody else is shown a section or a link that would end in a refusal.
 */
import type { PlatformMode } from '../../contract/platform-config';

/** True when the Desk may ask the audit API for this user in this deployment. */
export function mayReadAudit(isSystemManager: boolean, mode: PlatformMode): boolean {
  return isSystemManager && mode === 'monolith';
}
