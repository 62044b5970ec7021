/**
 * Wire types of the gateway discovery endpoints: what the gateway answers and what the SDK, the shell and
 * the load-test harness read. Types only.
 */
import type { EncryptionJwk } from './security';

/**
 * Why a signed-in user is handed another release of a remote than the live one (MONOLITH releases,
 * docs/mfe-teams.md#canaries-and-pins): only on answers the gateway rewrote for that user. Without these
 * fields, the entry URL is the live release's (or a remote that is not a release).
 */
export interface ReleaseAssignment {
  /** `canary`: the user is in the canary's share; `pinned`: a pin of the user or of one of their roles. */
  channel?: 'canary' | 'pinned';
  /** The entry URL of the live release everyone else gets (absent while none is live). */
  liveUrl?: string;
}

/** Manifest entry of one remote service: where its UI remote, data API and metadata live. */
export interface DiscoveryUnit extends ReleaseAssignment {
  /** Full URL of the remote entry script (`remoteEntry.js`). */
  url: string;
  /** Base URL for all data operations of the service (`<apiUrl>/resource/<DocType>`, `<apiUrl>/method/<name>`). */
  apiUrl: string;
  /** Endpoint for fetching UI metadata (DocTypes, menus): answers `ServiceMetadata`. */
  metaUrl: string;
  /** URL of the service's OpenAPI document. */
  openapiUrl?: string;
  /** Subresource Integrity of the remote entry (`sha384-<base64>`); the Desk loads it only when it matches. */
  integrity?: string;
}

/** `GET /api/gateway/remotes`: service name -> DiscoveryUnit, for services that ship a UI remote. */
export type RemotesMap = Record<string, DiscoveryUnit>;

/**
 * A service's full manifest as the gateway holds it. `rev` increases whenever the manifest changes;
 * `url` is null for a data-only service (no UI remote).
 */
export interface ServiceManifest extends ReleaseAssignment {
  service: string;
  rev: number;
  url: string | null;
  apiUrl: string;
  metaUrl: string;
  openapiUrl?: string;
  /** Full DocType names the service owns, e.g. `crm.Customer`. */
  doctypes: string[];
  /** Subresource Integrity of `url` (`sha384-<base64>`), when the service has a remote. */
  integrity?: string;
  /**
   * MACROSERVICE: the public halves of the service's own encryption keys (active first, then retired ones
   * in their grace period), each `kid` `svc:<service>:<thumbprint>`. The gateway lists them in its JWKS; the
   * manifests browsers get leave them out (docs/security.md#encrypted-to-the-owning-service).
   */
  encryptionKeys?: EncryptionJwk[];
}

/**
 * `POST /api/gateway/discovery/query` request. `services` maps a service name to the manifest `rev` the
 * client already holds (0 = none); the gateway returns a manifest only when its `rev` is newer.
 */
export interface DiscoveryQuery {
  resources: string[];
  services?: Record<string, number>;
  /**
   * `true`: the answer also carries {@link DiscoveryResult.remotes}, the remote entry of every service that
   * ships a UI remote (the Desk asks for it at each navigation, for its offer of a new release). Optional: an
   * older gateway ignores it and answers without `remotes`.
   */
  remotes?: boolean;
}

/**
 * Service name -> the URL of the `remoteEntry.js` the gateway hands out now, for every service that ships a
 * UI remote. A release's URL names its version (`/desk/assets/<service>/<version>/remoteEntry.js`).
 */
export type RemoteEntries = Record<string, string>;

/**
 * `POST /api/gateway/discovery/query` response. `resources`: DocType -> owning service, `null` when unknown.
 * `services`: manifests for (a) services the query asked for whose `rev` is newer than the client's and
 * (b) owners of the queried resources the client did not list; each has at least `url` and `apiUrl`.
 */
export interface DiscoveryResult {
  resources: Record<string, string | null>;
  services: Record<string, ServiceManifest>;
  /**
   * Only when the query asked for it (`remotes: true`), and only when the gateway can answer it for this
   * caller: the same entries as `GET /api/gateway/remotes`, as URLs. While a canary or pin sends some
   * signed-in users to another release, an answer to a caller without credentials leaves it out (its
   * entries might not be that user's): the caller then asks the remotes map with its session. Absent from
   * an older gateway's answers.
   */
  remotes?: RemoteEntries;
}

/** `GET /api/gateway/discovery/{resource}` response. */
export interface DiscoveryOwner {
  owner: string;
}

/** `GET /api/gateway/services`: every registered service with where it lives; `url` is null without a UI remote. */
export type ServicesMap = Record<
  string,
  { url: string | null; apiUrl: string; metaUrl: string; integrity?: string } & ReleaseAssignment
>;
