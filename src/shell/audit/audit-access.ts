/**
 * Who the Desk shows the audit of reveals to (docs/permissions.md#reveals-are-audited): the audit API
 * answers System Managers only (a MONOLITH server from its own log, a MACROSERVICE gateway from the logs of
 * its services), so nobody else is shown a section or a link that would end in a refusal.
 */

/** True when the Desk may ask the audit API for this user. */
export function mayReadAudit(isSystemManager: boolean): boolean {
  return isSystemManager;
}
