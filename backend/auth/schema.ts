/**
 * Tables of the auth chain, created with `CREATE TABLE IF NOT EXISTS` when the context is built. Secrets are
 * only ever stored hashed: scrypt for passwords, SHA-256 for the random session ids, API secrets and bearer
 * tokens (high-entropy values need no slow hash).
 */
export const AUTH_SCHEMA = `
CREATE TABLE IF NOT EXISTS auth_users (
  name TEXT PRIMARY KEY,
  password_hash TEXT NOT NULL,
  enabled BOOLEAN NOT NULL DEFAULT TRUE,
  created_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS auth_sessions (
  id_hash TEXT PRIMARY KEY,
  user_name TEXT NOT NULL REFERENCES auth_users (name) ON DELETE CASCADE,
  expires_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS auth_api_keys (
  api_key TEXT PRIMARY KEY,
  secret_hash TEXT NOT NULL,
  user_name TEXT NOT NULL REFERENCES auth_users (name) ON DELETE CASCADE,
  created_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS auth_tokens (
  id_hash TEXT PRIMARY KEY,
  user_name TEXT NOT NULL REFERENCES auth_users (name) ON DELETE CASCADE,
  expires_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS auth_user_roles (
  user_name TEXT NOT NULL REFERENCES auth_users (name) ON DELETE CASCADE,
  role TEXT NOT NULL,
  PRIMARY KEY (user_name, role)
);
CREATE TABLE IF NOT EXISTS auth_secrets (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`;
