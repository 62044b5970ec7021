/**
 * What the offline development build's header says about its data (docs/mfe-teams.md#offline-development):
 * "sample data" only when the in-browser backend started with sample records. The development entry sets
 * it before the Desk boots; a server-backed Desk never reads it.
 */

let sampleData = true;

/** Records whether the offline backend started with sample records (called by the development entry). */
export function setOfflineSampleData(hasSamples: boolean): void {
  sampleData = hasSamples;
}

/** The offline badge's text: `offline · sample data`, or `offline` when the app has no sample records. */
export function offlineBadgeText(): string {
  return sampleData ? 'offline · sample data' : 'offline';
}
