/**
 * The CSV import API the list's Import action calls (docs/http-api.md#csv-import), free of React: the
 * preview, the start of an import (answered at once, `Prefer: respond-async`, RFC 7240) and its progress,
 * followed until it ends.
 */
import type { ImportPreview, ImportProgress, MappingRequest } from '../../protocol/import';
import { fetchWithCredentials } from '../../sdk/http';

export type {
  ColumnMapping,
  ImportPreview,
  ImportProgress,
  MappingRequest,
  RowProblem,
} from '../../protocol/import';

/** The calls for one DocType, relative to the gateway. */
export function importApi(gatewayUrl: string, docType: string) {
  const base = `${gatewayUrl}/api/import/${encodeURIComponent(docType)}`;
  return {
    preview: async (csv: string, mapping: MappingRequest, signal?: AbortSignal) =>
      (
        await fetchWithCredentials<{ data: ImportPreview }>(`${base}/preview`, {
          method: 'POST',
          body: { csv, mapping },
          signal,
        })
      ).data,
    /** Starts the import `importId` (or resumes it: same id, file and mapping); answers at once. */
    start: async (csv: string, mapping: MappingRequest, importId: string) =>
      (
        await fetchWithCredentials<{ data: ImportProgress }>(base, {
          method: 'POST',
          body: { csv, mapping, import_id: importId },
          headers: { Prefer: 'respond-async' },
        })
      ).data,
    progress: async (importId: string, signal?: AbortSignal) =>
      (
        await fetchWithCredentials<{ data: ImportProgress }>(`${base}/${encodeURIComponent(importId)}`, {
          signal,
        })
      ).data,
  };
}

/** The calls {@link followImport} makes. */
export type ImportCalls = ReturnType<typeof importApi>;

/** How long the Desk waits between two progress requests of a running import. */
export const PROGRESS_INTERVAL_MS = 400;

/**
 * Asks for the progress of a running import until it is no longer running, telling each answer to
 * `onProgress`; resolves with the last one. `pause` waits between requests (a timer by default).
 */
export async function followImport(
  calls: Pick<ImportCalls, 'progress'>,
  first: ImportProgress,
  onProgress: (progress: ImportProgress) => void,
  signal: AbortSignal,
  pause: (signal: AbortSignal) => Promise<void> = (s) =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, PROGRESS_INTERVAL_MS);
      s.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    }),
): Promise<ImportProgress> {
  let progress = first;
  onProgress(progress);
  while (progress.status === 'running') {
    await pause(signal);
    signal.throwIfAborted();
    progress = await calls.progress(progress.import_id, signal);
    onProgress(progress);
  }
  return progress;
}

/** A fresh import id: the key under which each row of this import is created at most once. */
export function newImportId(): string {
  return crypto.randomUUID();
}
