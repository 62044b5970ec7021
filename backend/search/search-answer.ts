/** The global search's wire types and limits live in the protocol; re-exported for the search room. */
export type { SearchAnswer, SearchGap, SearchGroup, SearchHit } from '../../src/protocol';
export { HITS_PER_DOCTYPE, MAX_SEARCH_LENGTH } from '../../src/protocol';
