/**
 * Wire types of the releases API (docs/operators.md#the-releases-api), as the Desk's Releases page reads
 * them: every answer is `{ data: … }`. Types only.
 */

/** A canary: `percent` of the service's users (a stable share, by user name) get `version`. */
export interface ReleaseCanary {
  version: string;
  percent: number;
}

/** One line of `GET /api/releases`: an installed service with releases, where its channel stands. */
export interface ReleaseOverview {
  service: string;
  live: string | null;
  canary: ReleaseCanary | null;
  /** How many pins send a user or a role's holders to another release. */
  pins: number;
  /** Published releases kept. */
  releases: number;
}

/** A release as the listing shows it (its files and contract left out). */
export interface ReleaseListing {
  version: string;
  packageVersion: string;
  state: 'staged' | 'published';
  /** Who published it. */
  publisher: string;
  createdAt: number;
  publishedAt: number | null;
  fileCount: number;
  /** The channels and pins pointing at it: `live`, `canary <n>%`, `pinned`. */
  channels: string[];
}

/** A pin: one user, or every holder of one role, gets this release whatever the channel says. */
export interface ReleasePinListing {
  kind: 'user' | 'role';
  subject: string;
  version: string;
  actor: string;
  at: number;
}

/** One change of a service's channel: who did what, when. */
export interface ReleaseHistoryEntry {
  seq: number;
  at: number;
  actor: string;
  action: 'publish' | 'promote' | 'rollback' | 'canary' | 'pin' | 'unpin';
  version: string | null;
  /** The live release before a promotion or rollback. */
  previous: string | null;
  /** True when the contract gate refused and the change was forced. */
  forced: boolean;
  /**
   * A forced promotion's or rollback's refused differences (`[{ field, code, message }]`), a canary's
   * `{ percent, differences? }`, or a pin's `{ kind, subject }`.
   */
  detail?: unknown;
}

/** `GET /api/releases/<service>`: the channel, the pins, the kept releases and the history, newest first. */
export interface ServiceReleasesAnswer {
  service: string;
  channel: { live: string | null; canary: ReleaseCanary | null; rev: number };
  pins: ReleasePinListing[];
  releases: ReleaseListing[];
  history: ReleaseHistoryEntry[];
}
