/**
 * The page's recent Content-Security-Policy refusals: a refused script or eval fires no error the Module
 * Federation runtime sees, so only the `securitypolicyviolation` event names the cause of such a failed load.
 */
import type { CspRefusal } from './diagnosis';

/** How many CSP refusals are remembered to diagnose a failed load. */
const KEPT_REFUSALS = 20;

/**
 * Starts remembering the page's CSP refusals (the last 20) and returns the list, kept up to date; outside a
 * browser the list stays empty.
 */
export function watchCspRefusals(): readonly CspRefusal[] {
  const refusals: CspRefusal[] = [];
  globalThis.document?.addEventListener?.('securitypolicyviolation', (event) => {
    const e = event as SecurityPolicyViolationEvent;
    refusals.push({
      blockedURI: e.blockedURI ?? '',
      directive: e.effectiveDirective || e.violatedDirective || '',
      sourceFile: e.sourceFile ?? '',
    });
    if (refusals.length > KEPT_REFUSALS) refusals.shift();
  });
  return refusals;
}
