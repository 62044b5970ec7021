/**
 * The audit log API's wire type (docs/operators.md#the-audit-log), shared by the backend's log and the Desk's
 * audit screens.
 */

/** One reveal of personal data, as the audit log stores and serves it. */
export interface AuditEntry {
  /** Position in the chain, from 1, without gaps. */
  seq: number;
  /** ISO 8601, milliseconds. */
  at: string;
  /** The user the data was revealed to. */
  user: string;
  /** How that user authenticated: `session`, `api_key` or `bearer`. */
  via: string;
  doctype: string;
  record: string;
  /** The flagged fields returned in clear. */
  fields: string[];
  /** `get` (one record) or `list`. */
  route: string;
  /** The client's address as the middleware chain resolved it, or null. */
  client_address: string | null;
  /** `hash` of the previous entry (64 zeros for the first). */
  prev_hash: string;
  /** SHA-256 (hex) over `prev_hash` and every other field. */
  hash: string;
  /**
   * The service whose log holds the entry, in the answer of a MACROSERVICE gateway (which merges the
   * services' logs); absent where one process keeps the log. Not part of the hash.
   */
  service?: string;
}
