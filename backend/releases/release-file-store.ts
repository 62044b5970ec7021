import type { ReleaseFile } from './model';
import {
  appendStagedPart,
  deleteReleaseDir,
  readVerifiedFile,
  releaseDir,
  sha384Of,
  takeStagedFile,
  writeReleaseFile,
} from './release-files';

/** What became of one part of a file uploaded in several requests. */
export type PartOutcome = 'partial' | 'stored' | 'mismatch' | 'out_of_order';

/**
 * Where the files of releases are kept (docs/mfe-teams.md#releases): MONOLITH's data directory, or, behind
 * a MACROSERVICE gateway, the data directory of the service owning the remote. Every read is checked against
 * the hash fixed at publication, which the caller passes (it is in the release's record).
 */
export interface ReleaseFileStore {
  /** Stores a whole file, never over a different one (an identical one, an upload retried, is accepted). */
  write(service: string, version: string, path: string, bytes: Uint8Array): Promise<void>;
  /**
   * Adds one part of a file too large for one request (offset 0 starts it afresh); once the declared size
   * is reached the whole is checked against the declared hash and stored (`stored`) or dropped (`mismatch`).
   */
  appendPart(
    service: string,
    version: string,
    file: ReleaseFile,
    offset: number,
    bytes: Uint8Array,
  ): Promise<PartOutcome>;
  /** A file's bytes when they hash to `sha384`; `altered` when they do not; undefined when it is not there. */
  read(
    service: string,
    version: string,
    path: string,
    sha384: string,
  ): Promise<Uint8Array | 'altered' | undefined>;
  /** Deletes a release's files (retention); a release already gone is fine. */
  remove(service: string, version: string): Promise<void>;
}

/** The files under `<root>/<service>/<version>/` of this process's data directory. */
export function localReleaseFiles(root: string): ReleaseFileStore {
  const dir = (service: string, version: string) => releaseDir(root, service, version);
  return {
    write: (service, version, path, bytes) => writeReleaseFile(dir(service, version), path, bytes),
    async appendPart(service, version, file, offset, bytes) {
      const folder = dir(service, version);
      const staged = await appendStagedPart(folder, file.path, offset, bytes);
      if (staged === 'out_of_order') return 'out_of_order';
      if (staged < file.size) return 'partial';
      const complete = await takeStagedFile(folder, file.path);
      if (complete.byteLength !== file.size || sha384Of(complete) !== file.sha384) return 'mismatch';
      await writeReleaseFile(folder, file.path, complete);
      return 'stored';
    },
    read: (service, version, path, sha384) => readVerifiedFile(dir(service, version), path, sha384),
    remove: (service, version) => deleteReleaseDir(dir(service, version)),
  };
}
