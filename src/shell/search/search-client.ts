/**
 * The browser side of the global search: one `GET /api/search?q=` per pause in typing (the previous one is
 * aborted), answered by the gateway, which asks every service.
 */
import { SEARCH_PATH, type SearchAnswer } from '../../protocol';
import { fetchWithCredentials } from '../../sdk/http';

export type { SearchAnswer, SearchGroup, SearchHit } from '../../protocol';

/** Pause in typing after which the search is sent, in milliseconds. */
export const SEARCH_DEBOUNCE_MS = 250;

/** Sends one search. */
export function searchRecords(gatewayUrl: string, q: string, signal?: AbortSignal): Promise<SearchAnswer> {
  return fetchWithCredentials<SearchAnswer>(`${gatewayUrl}${SEARCH_PATH}`, { query: { q }, signal });
}
