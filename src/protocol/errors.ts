/**
 * The one JSON error shape every endpoint answers with, and every code the platform's servers emit. Clients
 * switch on `code` (stable, for programs), never on `message` (for people).
 */

/**
 * Every error code a platform server puts in an error body. The backend's error constructors take only
 * these, so a misspelt code does not compile.
 */
export type ErrorCode =
  // Generic HTTP answers.
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unprocessable'
  | 'rate_limited'
  | 'bad_gateway'
  | 'unavailable'
  | 'gateway_timeout'
  | 'http_error'
  | 'internal_error'
  | 'request_timeout'
  | 'headers_too_large'
  // The request itself: its Host, its URL, characters that cannot be stored.
  | 'invalid_host'
  | 'invalid_url'
  | 'invalid_characters'
  // Request bodies and queries.
  | 'invalid_json'
  | 'invalid_body'
  | 'invalid_query'
  | 'invalid_filters'
  | 'invalid_fields'
  | 'invalid_order_by'
  | 'invalid_paging'
  | 'invalid_path'
  | 'validation_failed'
  // Records and the links between them.
  | 'duplicate'
  | 'link_not_found'
  | 'linked'
  // CSV import (docs/http-api.md#csv-import).
  | 'invalid_csv'
  | 'invalid_mapping'
  | 'import_mismatch'
  | 'insufficient_storage'
  // Authentication and CSRF.
  | 'invalid_credentials'
  | 'csrf_failed'
  | 'untrusted_caller'
  // Sign-in throttling, users and permissions (docs/permissions.md).
  | 'too_many_attempts'
  | 'login_busy'
  | 'user_exists'
  | 'unknown_user'
  | 'masked_value'
  // Personal data at rest (docs/security.md#personal-data-at-rest) and the audit log of its reveals.
  | 'field_encrypted'
  | 'integrity_failed'
  // Payload encryption.
  | 'encryption_required'
  | 'encryption_disabled'
  | 'decryption_failed'
  | 'unknown_key'
  | 'key_not_for_service'
  | 'replayed'
  // Idempotency.
  | 'invalid_idempotency_key'
  | 'idempotency_in_flight'
  | 'idempotency_key_reused'
  // Data, discovery and routing.
  | 'unknown_doctype'
  | 'unknown_method'
  | 'unknown_resource'
  | 'unknown_service'
  | 'service_unavailable'
  | 'upstream_timeout'
  | 'upstream_unavailable'
  | 'upstream_redirect'
  | 'upstream_error'
  | 'not_available_offline'
  | 'shell_unavailable'
  // Releases of UI remotes (docs/mfe-teams.md#releases).
  | 'unknown_release'
  | 'release_incomplete'
  | 'release_file_mismatch'
  | 'release_altered'
  | 'contract_incompatible'
  | 'nothing_to_roll_back'
  // Process-level failures (configuration, bus, key-value store, CLI usage): a 500 at most on the wire.
  | 'config_invalid'
  | 'data_dir_locked'
  | 'openapi_invalid_dto'
  | 'bus_unavailable'
  | 'bus_closed'
  | 'kv_invalid_key'
  | 'kv_key_exists'
  | 'kv_revision_mismatch'
  | 'usage'
  // Raised by the load-test harness about its target; they end a run, never an HTTP exchange.
  | 'target_unreachable'
  | 'target_mismatch'
  | 'login_failed'
  | 'factory_failed'
  | 'worker_failed'
  | 'workers_missing'
  | 'invalid_result';

/** One field-level problem of a validation error. Never carries the submitted value. */
export interface FieldError {
  field: string;
  code: string;
  message: string;
}

/**
 * `{ "error": { "code": "not_found", "message": "...", "fields"?: [...] } }`. `message` never contains a
 * stack trace, a secret or the plaintext of an encrypted field.
 */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; fields?: FieldError[] };
}
