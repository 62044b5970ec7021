/**
 * The browser side of the global search: one `GET /api/search?q=` per pause in typing (the previous one is
 * aborted), answered by the gateway, which asks every service.
 */
import { fetchWithCredentials } from '../../sdk/http';

/** One record found. */
export interface SearchHit {
  name: string;
  title: string;
}

/** Records found in one DocType. */
export interface SearchGroup {
  docType: string;
  label: string;
  hits: SearchHit[];
}

/** The gateway's answer. */
export interface SearchAnswer {
  q: string;
  groups: SearchGroup[];
  /** Services left out because they were slow or down. */
  incomplete: Array<{ service: string; reason: string }>;
}

/** Path of the global search under the gateway. */
export const SEARCH_PATH = '/api/search';

/** Pause in typing after which the search is sent, in milliseconds. */
export const SEARCH_DEBOUNCE_MS = 250;

/** Sends one search. */
export function searchRecords(gatewayUrl: string, q: string, signal?: AbortSignal): Promise<SearchAnswer> {
  return fetchWithCredentials<SearchAnswer>(`${gatewayUrl}${SEARCH_PATH}`, { query: { q }, signal });
}
