import type { ReleaseHistoryEntry } from '../../src/protocol/releases';
import type { ContractFingerprint } from './fingerprint';

/** One file of a release as published: its path in the build folder, its SRI hash and its size. */
export interface ReleaseFile {
  path: string;
  /** `sha384-<base64>`, fixed at publication; every serving of the file is checked against it. */
  sha384: string;
  size: number;
}

/**
 * A release of a service's UI remote (docs/mfe-teams.md#releases): immutable once published. `staged` while
 * its files are being uploaded; only a `published` release can be promoted, canaried or pinned.
 */
export interface Release {
  service: string;
  /** `<package.json version>+<build id>`, e.g. `1.4.0+3f9a0c1d2e4b`. */
  version: string;
  packageVersion: string;
  buildId: string;
  state: 'staged' | 'published';
  files: ReleaseFile[];
  /** The build's `mf-manifest.json`, as published; null when the build had none. */
  mfManifest: unknown;
  fingerprint: ContractFingerprint;
  /** The user who published it. */
  publisher: string;
  createdAt: number;
  publishedAt: number | null;
}

/** A release without its file list and fingerprint, as listings show it. */
export type ReleaseSummary = Omit<Release, 'files' | 'fingerprint' | 'mfManifest'> & {
  fileCount: number;
  /** `metaData.buildInfo.buildVersion` of its `mf-manifest.json`, when the build has one. */
  buildVersion: string | null;
  /** The channels and pins pointing at it: `live`, `canary`, `pinned`. */
  channels: string[];
};

/** Where a service's users are sent: its live release and, optionally, a canary for a share of them. */
export interface ChannelState {
  service: string;
  live: string | null;
  canary: { version: string; percent: number } | null;
  /** Grows with every change of the channel or the service's pins. */
  rev: number;
}

/** A pin: one user, or every holder of one role, sees this release whatever the channel says. */
export interface ReleasePin {
  kind: 'user' | 'role';
  subject: string;
  version: string;
  actor: string;
  at: number;
}

/** What happened to a service's channel, who did it and when (the wire type of the releases API). */
export type HistoryEntry = ReleaseHistoryEntry;
