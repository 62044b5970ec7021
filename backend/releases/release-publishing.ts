import type { FieldError } from '../http/errors';
import { PlatformError } from '../http/errors';
import type { ContractFingerprint } from './fingerprint';
import type { Release, ReleaseFile } from './model';
import type { ReleaseFileStore } from './release-file-store';
import { buildIdOf, sha384Of } from './release-files';
import type { ReleaseStore } from './release-store';

/** What a publication asks for: the files the build holds, by path and hash, and what it was built from. */
export interface StageRequest {
  packageVersion: string;
  files: ReleaseFile[];
  mfManifest: unknown;
  fingerprint: ContractFingerprint;
}

/** The state of a publication: its version, and the files still to upload (none once published). */
export interface StageAnswer {
  version: string;
  state: Release['state'];
  missing: string[];
}

/** Who asks for a change. */
export interface Actor {
  user: string;
}

/** 404 `unknown_release`. */
export function unknownRelease(service: string, version: string): PlatformError {
  return new PlatformError('unknown_release', `${service} has no release ${version}.`, { status: 404 });
}

/** What publication needs of the {@link ReleaseService} it belongs to. */
export interface PublishingParts {
  store: ReleaseStore;
  files: ReleaseFileStore;
  /** The running contract of a service; 404 `unknown_service` for one this process does not know. */
  requireService(service: string): ContractFingerprint;
  /** The strictly increasing clock of the service. */
  tick(): number;
  /** Retention, after a publication. */
  retain(service: string): Promise<void>;
  /** How long a publication may stay unfinished before it is removed (`releases.staged_max_age_hours`). */
  stagedMaxAgeMs: number;
  now(): number;
  log(line: string): void;
}

/**
 * Publication of releases (docs/mfe-teams.md#publishing-a-release): a staged record with the hashes the
 * build declares, uploads checked against them and stored where the files are kept, and the publication once
 * every file is there intact.
 */
export class ReleasePublishing {
  readonly #parts: PublishingParts;

  constructor(parts: PublishingParts) {
    this.#parts = parts;
  }

  /**
   * Removes the publications started more than `stagedMaxAgeMs` ago and never finished (a client that gave
   * up half-way): their records and whatever files they had. A publication resumed in time is finished before
   * then; one resumed later starts again from nothing. Answers how many were removed.
   */
  async sweepStaged(): Promise<number> {
    const stale = await this.#parts.store.stagedBefore(this.#parts.now() - this.#parts.stagedMaxAgeMs);
    for (const { service, version } of stale) {
      await this.#parts.store.delete(service, version);
      await this.#parts.files.remove(service, version).catch((err: unknown) => {
        // The service keeping them may be down: its folder is left, without a record nothing serves it.
        this.#parts.log(
          `release ${service} ${version}: files of the unfinished publication left (${(err as Error).message})`,
        );
      });
      this.#parts.log(`release ${service} ${version} removed (publication not finished in time)`);
    }
    return stale.length;
  }

  /**
   * Starts (or resumes) the publication of a build: records a staged release whose version is the package
   * version plus the build id of the declared files, and answers the files still to upload. The same build
   * published again is the same release (already published: nothing to upload).
   */
  async stage(service: string, request: StageRequest, actor: Actor): Promise<StageAnswer> {
    this.#parts.requireService(service);
    await this.sweepStaged();
    const paths = new Set<string>();
    for (const f of request.files) {
      if (paths.has(f.path)) {
        throw new PlatformError('validation_failed', 'A file is listed twice.', {
          status: 400,
          fields: [{ field: f.path, code: 'duplicate', message: 'Listed twice.' }],
        });
      }
      paths.add(f.path);
    }
    if (!paths.has('remoteEntry.js')) {
      throw new PlatformError('validation_failed', 'A release needs the build folder’s remoteEntry.js.', {
        status: 400,
        fields: [{ field: 'files', code: 'missing', message: 'remoteEntry.js is not listed.' }],
      });
    }
    const buildId = buildIdOf(request.files);
    const version = `${request.packageVersion}+${buildId}`;
    const existing = await this.#parts.store.get(service, version);
    if (!existing) {
      await this.#parts.store.insertStaged({
        service,
        version,
        packageVersion: request.packageVersion,
        buildId,
        state: 'staged',
        files: [...request.files].sort((a, b) => a.path.localeCompare(b.path)),
        mfManifest: request.mfManifest ?? null,
        fingerprint: request.fingerprint,
        publisher: actor.user,
        createdAt: this.#parts.tick(),
        publishedAt: null,
      });
    }
    return this.#progress(service, version, actor);
  }

  /**
   * Stores uploaded files of a staged release, each checked against the hash declared when it was staged
   * (422 `release_file_mismatch` naming the file otherwise); the last one publishes the release. A file too
   * large for one request comes in parts, each with its `offset`, and is checked once it is whole.
   */
  async upload(
    service: string,
    version: string,
    files: ReadonlyArray<{ path: string; bytes: Uint8Array; offset?: number }>,
    actor: Actor,
  ): Promise<StageAnswer> {
    const release = await this.#parts.store.get(service, version);
    if (!release) throw unknownRelease(service, version);
    if (release.state === 'published') return { version, state: 'published', missing: [] };
    const declared = new Map(release.files.map((f) => [f.path, f]));
    const wrong: FieldError[] = [];
    const mismatch = (field: string) =>
      wrong.push({ field, code: 'hash_mismatch', message: 'The bytes do not match the declared hash.' });
    const whole: Array<{ path: string; bytes: Uint8Array }> = [];
    const parts: Array<{ file: ReleaseFile; bytes: Uint8Array; offset: number }> = [];
    for (const { path, bytes, offset } of files) {
      const file = declared.get(path);
      if (!file) wrong.push({ field: path, code: 'not_declared', message: 'Not a file of this release.' });
      else if (offset !== undefined) {
        if (offset + bytes.byteLength > file.size) {
          wrong.push({
            field: path,
            code: 'part_too_long',
            message: 'The part ends after the declared size.',
          });
        } else parts.push({ file, bytes, offset });
      } else if (sha384Of(bytes) !== file.sha384 || bytes.byteLength !== file.size) mismatch(path);
      else whole.push({ path, bytes });
    }
    const refuse = () =>
      new PlatformError('release_file_mismatch', 'Some uploaded files are not the declared ones.', {
        status: 422,
        fields: wrong,
      });
    if (wrong.length > 0) throw refuse();
    for (const { path, bytes } of whole) await this.#parts.files.write(service, version, path, bytes);
    for (const { file, bytes, offset } of parts) {
      const outcome = await this.#parts.files.appendPart(service, version, file, offset, bytes);
      if (outcome === 'out_of_order') {
        wrong.push({
          field: file.path,
          code: 'offset_mismatch',
          message: 'The part does not continue the file.',
        });
      } else if (outcome === 'mismatch') mismatch(file.path);
    }
    if (wrong.length > 0) throw refuse();
    return this.#progress(service, version, actor);
  }

  /** The files of a staged release not yet stored intact; publishes it when there are none. */
  async #progress(service: string, version: string, actor: Actor): Promise<StageAnswer> {
    const release = await this.#parts.store.get(service, version);
    if (!release) throw unknownRelease(service, version);
    if (release.state === 'published') return { version, state: 'published', missing: [] };
    const missing: string[] = [];
    for (const file of release.files) {
      const bytes = await this.#parts.files.read(service, version, file.path, file.sha384);
      if (bytes === undefined || bytes === 'altered') missing.push(file.path);
    }
    if (missing.length > 0) return { version, state: 'staged', missing };
    const at = this.#parts.tick();
    await this.#parts.store.markPublished(service, version, at);
    await this.#parts.store.record(service, {
      at,
      actor: actor.user,
      action: 'publish',
      version,
      previous: null,
      forced: false,
    });
    await this.#parts.retain(service);
    return { version, state: 'published', missing: [] };
  }
}
