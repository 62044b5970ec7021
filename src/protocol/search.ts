/**
 * The global search (`GET /api/search?q=`): records whose title contains the text, grouped by DocType, and
 * the services left out because they were slow or down. Types and limits only.
 */

/** One record found. */
export interface SearchHit {
  /** The record's id. */
  name: string;
  /** The record's title (its DocType's title field), or its id when the title is empty. */
  title: string;
}

/** The records found in one DocType. */
export interface SearchGroup {
  /** Full DocType name, e.g. `crm.Customer`. */
  docType: string;
  /** The DocType's label, e.g. `Customer`. */
  label: string;
  hits: SearchHit[];
}

/** A service left out of the answer and why. */
export interface SearchGap {
  service: string;
  reason: 'timeout' | 'unavailable';
}

/** `GET /api/search?q=` answer. */
export interface SearchAnswer {
  q: string;
  groups: SearchGroup[];
  /** Services that did not answer in time or failed; empty when the answer is complete. */
  incomplete: SearchGap[];
}

/** Longest accepted search text, in characters. */
export const MAX_SEARCH_LENGTH = 100;

/** Records returned per DocType. */
export const HITS_PER_DOCTYPE = 5;
