import { signInternalRequest } from '../auth/internal-auth';
import type { ServiceDirectory } from '../gateway/service-directory';
import { PlatformError } from '../http/errors';
import { RELEASE_FILES_PATH } from './release-file-routes';
import type { PartOutcome, ReleaseFileStore } from './release-file-store';

/** Options of {@link remoteReleaseFiles}. */
export interface RemoteReleaseFilesOptions {
  /** The gateway's internal directory: the services' own addresses. */
  directory: Pick<ServiceDirectory, 'get'>;
  /** The secret shared with services (`PLATFORM_INTERNAL_SECRET`). */
  secret: string;
  /** Deadline of one exchange with a service. */
  timeoutMs: number;
  fetch?: typeof fetch;
}

function unavailable(service: string, cause?: unknown): PlatformError {
  return new PlatformError('service_unavailable', `Service ${service} is unavailable.`, {
    status: 503,
    headers: { 'Retry-After': '1' },
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * The files of releases kept by the services owning the remotes (docs/operators.md#releases-in-macroservice):
 * each operation is a request this gateway signs to the service's own address
 * (backend/releases/release-file-routes.ts), naming the hash the release's record holds, so the service
 * checks every read against the hash fixed at publication. A service not running answers 503
 * `service_unavailable`: its files are with it.
 */
export function remoteReleaseFiles(options: RemoteReleaseFilesOptions): ReleaseFileStore {
  const fetchImpl = options.fetch ?? fetch;
  const send = async (
    service: string,
    method: string,
    version: string,
    path: string,
    query: Record<string, string>,
    body?: Uint8Array,
  ): Promise<Response> => {
    const manifest = options.directory.get(service);
    if (!manifest) throw unavailable(service);
    const encoded = [version, ...(path === '' ? [] : path.split('/'))].map(encodeURIComponent).join('/');
    const search = new URLSearchParams(query).toString();
    const targetPath = `${RELEASE_FILES_PATH}/${encoded}${search ? `?${search}` : ''}`;
    const headers = signInternalRequest(options.secret, {
      method,
      target: targetPath,
      body: body ?? '',
    });
    try {
      return await fetchImpl(`${new URL(manifest.apiUrl).origin}${targetPath}`, {
        method,
        headers,
        ...(body ? { body: body as Uint8Array<ArrayBuffer> } : {}),
        signal: AbortSignal.timeout(options.timeoutMs),
        redirect: 'error',
      });
    } catch (cause) {
      throw unavailable(service, cause);
    }
  };
  const failed = (service: string, res: Response) =>
    new PlatformError('bad_gateway', `Service ${service} answered ${res.status} for a release file.`, {
      status: 502,
    });
  return {
    async write(service, version, path, bytes) {
      const res = await send(service, 'PUT', version, path, {}, bytes);
      if (res.status === 409) throw new Error('a different file is already stored at this path');
      if (!res.ok) throw failed(service, res);
    },
    async appendPart(service, version, file, offset, bytes) {
      const res = await send(
        service,
        'PUT',
        version,
        file.path,
        { offset: String(offset), size: String(file.size), sha384: file.sha384 },
        bytes,
      );
      if (!res.ok) throw failed(service, res);
      return ((await res.json()) as { data: { outcome: PartOutcome } }).data.outcome;
    },
    async read(service, version, path, sha384) {
      const res = await send(service, 'GET', version, path, { sha384 });
      if (res.status === 404) return undefined;
      if (
        res.status === 500 &&
        ((await res.json()) as { error?: { code?: string } }).error?.code === 'release_altered'
      ) {
        return 'altered';
      }
      if (!res.ok) throw failed(service, res);
      return new Uint8Array(await res.arrayBuffer());
    },
    async remove(service, version) {
      const res = await send(service, 'DELETE', version, '', {});
      if (!res.ok) throw failed(service, res);
    },
  };
}
