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
