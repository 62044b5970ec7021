/**
 * Endpoint paths both sides of the wire use: the backend mounts its routes on them, the SDK, the shell, the
 * mocks and the load-test harness call them. Paths only (no origin): a caller prefixes its own base URL.
 */

/** `POST`: session login with JSON `{ usr, pwd }`; answers a session cookie and a CSRF token. */
export const LOGIN_PATH = '/api/method/login';

/** `POST`: ends the session (the server forgets it and clears the cookie). */
export const LOGOUT_PATH = '/api/method/logout';

/** `POST`: changes the signed-in user's password (a credential-carrying body). */
export const CHANGE_PASSWORD_PATH = '/api/method/platform.auth.change_password';

/** `POST`: creates an API key (a credential-carrying answer and body). */
export const GENERATE_API_KEY_PATH = '/api/method/platform.auth.generate_api_key';

/**
 * `GET`: who is signed in: `{ message: { user, full_name, csrf_token, roles, permissions } }`, `permissions`
 * mapping each installed DocType to `{ read, create, write, delete, read_pii }` (docs/permissions.md).
 */
export const WHOAMI_PATH = '/api/method/whoami';

/** `POST`: issues a bearer token for the calling user (never for a bearer-token caller). */
export const ISSUE_TOKEN_PATH = '/api/method/platform.auth.issue_token';

/** The users API (System Managers; docs/permissions.md#users): every call is `POST` with a JSON body. */
export const USERS_PATHS = {
  list: '/api/method/platform.users.list',
  add: '/api/method/platform.users.add',
  setRoles: '/api/method/platform.users.set_roles',
  setPassword: '/api/method/platform.users.set_password',
  disable: '/api/method/platform.users.disable',
  enable: '/api/method/platform.users.enable',
  roles: '/api/method/platform.users.roles',
} as const;

/**
 * Prefix of the permissions endpoints: `GET /api/permissions` (the caller's), `GET|PUT|DELETE
 * /api/permissions/<doctype>` (a DocType's rules, System Managers).
 */
export const PERMISSIONS_PREFIX = '/api/permissions';

/**
 * Prefix of the releases API (System Managers; docs/operators.md#the-releases-api): `GET /api/releases`,
 * `GET /api/releases/<service>`, `POST /api/releases/<service>/{publish,upload,promote,rollback,canary,pin}`.
 */
export const RELEASES_PREFIX = '/api/releases';

/** Prefix of every gateway endpoint (discovery, remotes, asset proxy). */
export const GATEWAY_PREFIX = '/api/gateway/';

/** `GET`: service name -> `DiscoveryUnit` for services that ship a UI remote. */
export const REMOTES_PATH = '/api/gateway/remotes';

/** `POST`: batched discovery of resource owners and manifests (`DiscoveryQuery`). */
export const DISCOVERY_QUERY_PATH = '/api/gateway/discovery/query';

/** Prefix of the payload-encryption endpoints (config and JWKS). */
export const SECURITY_PREFIX = '/api/v1/security/';

/** `GET`: the payload-encryption config (`SecurityConfig`). */
export const SECURITY_CONFIG_PATH = '/api/v1/security/config';

/** `GET`: the public encryption keys (`Jwks`); the config's `jwks_uri` names it. */
export const JWKS_PATH = '/api/v1/security/jwks';

/** `GET ?q=<text>`: records of every service whose title contains the text (`SearchAnswer`). */
export const SEARCH_PATH = '/api/search';

/** `GET`: every registered service, UI remote or not (`ServicesMap`), for the Desk's navigation. */
export const SERVICES_PATH = '/api/gateway/services';
