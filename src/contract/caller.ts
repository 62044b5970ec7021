/** Who made a request, once the platform's authentication has run. */
export interface Principal {
  /** User name, e.g. `Administrator`. */
  user: string;
  /** How the request authenticated. */
  via: 'session' | 'api_key' | 'bearer';
  /**
   * The user's roles when the credential was resolved (docs/permissions.md). In MACROSERVICE they travel in
   * the principal the gateway signs; a service takes roles from nowhere else. Absent: no roles.
   */
  roles?: readonly string[];
}

/** A line logger; never given request bodies, secrets or personal data. */
export type Logger = (line: string) => void;
