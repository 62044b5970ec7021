/**
 * The wire contract of the Desk platform (`@framework-m/desk/protocol`): everything the backend and its
 * clients (SDK, shell, mocks, load-test harness) agree on. Environment-agnostic: no Node, DOM or React APIs.
 */

export type { AuditEntry } from './audit';
export { CSV_CONTENT_TYPE, csvCell, csvRow } from './csv';
export type { DevBuildError, DevBuildStatus } from './dev-build';
export {
  DEV_BUILD_STATUS_EVENT,
  DEV_BUILD_STATUS_PATH,
  parseDevBuildStatus,
} from './dev-build';
export type {
  DiscoveryOwner,
  DiscoveryQuery,
  DiscoveryResult,
  DiscoveryUnit,
  ReleaseAssignment,
  RemoteEntries,
  RemotesMap,
  ServiceManifest,
  ServicesMap,
} from './discovery';
export type { DocTypeSchema, FieldSchema, FieldType, FlaggedSchema } from './doctype-schema';
export { flaggedFieldNames, hasFlaggedFields, isFlagged } from './doctype-schema';
export type { EncryptionRule } from './encryption-policy';
export { BUILTIN_SELECTIVE_ROUTES, requiresEncryption, STRICT_EXEMPT_PREFIXES } from './encryption-policy';
export type { ErrorBody, ErrorCode, FieldError } from './errors';
export {
  CSRF_HEADER,
  IDEMPOTENCY_HEADER,
  JOSE_CONTENT_TYPE,
  JSON_CONTENT_TYPE,
  SERVICE_HEADER,
} from './headers';
export type { ColumnMapping, ImportPreview, ImportProgress, MappingRequest, RowProblem } from './import';
export type { ListResponse, MenuItem, RecordResponse, RpcResponse, ServiceMetadata } from './metadata';
export { isMutating, isSafeMethod, MUTATING_METHODS, SAFE_METHODS } from './methods';
export {
  CHANGE_PASSWORD_PATH,
  DISCOVERY_QUERY_PATH,
  GATEWAY_PREFIX,
  GENERATE_API_KEY_PATH,
  ISSUE_TOKEN_PATH,
  JWKS_PATH,
  LOGIN_PATH,
  LOGOUT_PATH,
  PERMISSIONS_PREFIX,
  RELEASES_PREFIX,
  REMOTES_PATH,
  SEARCH_PATH,
  SECURITY_CONFIG_PATH,
  SECURITY_PREFIX,
  SERVICES_PATH,
  USERS_PATHS,
  WHOAMI_PATH,
} from './paths';
export type { DocTypePermissions } from './permissions';
export { PII_MASK } from './permissions';
export type {
  ReleaseCanary,
  ReleaseHistoryEntry,
  ReleaseListing,
  ReleaseOverview,
  ReleasePinListing,
  ServiceReleasesAnswer,
} from './releases';
export { parseRetryAfter } from './retry-after';
export { globToRegExp, matchesRoute } from './route-match';
export type { SearchAnswer, SearchGap, SearchGroup, SearchHit } from './search';
export { HITS_PER_DOCTYPE, MAX_SEARCH_LENGTH } from './search';
export type { EncryptionJwk, EncryptionMode, Jwks, RequestBinding, SecurityConfig } from './security';
export {
  ENCRYPTION_MODES,
  JWE_ALG,
  JWE_ENC,
  SERVICE_KID_PREFIX,
  serviceKidPrefix,
  serviceOfKid,
} from './security';
export type { WhoamiResponse } from './session';
