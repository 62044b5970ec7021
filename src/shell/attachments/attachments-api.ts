/**
 * The attachments API the record form calls (docs/http-api.md#a-records-attachments): list a record's files,
 * upload one (the raw file, its name in `?filename=`), remove one, and the URL a file downloads from. The
 * wire type mirrors the backend's `backend/attachments/attachment.ts`.
 */
import { fetchWithCredentials } from '../../sdk/http';

/** One file attached to a record. */
export interface Attachment {
  id: string;
  doctype: string;
  record: string;
  file_name: string;
  media_type: string;
  size: number;
  sha256: string;
  uploader: string;
  /** ISO 8601. */
  at: string;
}

/** The calls for one record, relative to the gateway. */
export function attachmentsApi(gatewayUrl: string, docType: string, name: string) {
  const base = `${gatewayUrl}/api/resource/${encodeURIComponent(docType)}/${encodeURIComponent(name)}/attachments`;
  return {
    list: async (signal?: AbortSignal) =>
      (await fetchWithCredentials<{ data: Attachment[] }>(base, { signal })).data,
    upload: async (file: File) =>
      (
        await fetchWithCredentials<{ data: Attachment }>(base, {
          method: 'POST',
          query: { filename: file.name },
          headers: { 'Content-Type': file.type || 'application/octet-stream' },
          // The bytes, not the File: every fetch sends an ArrayBuffer as is (and the largest is bounded by
          // `attachments.max_bytes`).
          body: await file.arrayBuffer(),
        })
      ).data,
    remove: (id: string) =>
      fetchWithCredentials<unknown>(`${base}/${encodeURIComponent(id)}`, { method: 'DELETE' }).then(
        () => undefined,
      ),
    /** Where the browser downloads a file from (the session cookie authenticates it). */
    downloadUrl: (id: string) => `${base}/${encodeURIComponent(id)}`,
  };
}

/** The query key of a record's attachments. */
export const attachmentsKey = (docType: string, name: string) => ['attachments', docType, name] as const;

/** A size for people: `512 bytes`, `12.3 KB`, `4.5 MB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
