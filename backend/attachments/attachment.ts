/**
 * A file attached to a record (docs/http-api.md#a-records-attachments): what is kept of it, how its name is
 * made safe to store and to offer back, and which media types a browser may be told. Nothing here touches
 * a file system, so the offline mocks use it as the server does.
 */
import { PlatformError } from '../http/errors';

/** One attachment as the API answers it. */
export interface Attachment {
  id: string;
  doctype: string;
  /** The record's name. */
  record: string;
  /** The sanitised file name (see {@link sanitiseFileName}). */
  file_name: string;
  /** The media type the uploader declared (lower-case, without parameters). */
  media_type: string;
  /** Size in bytes. */
  size: number;
  /** SHA-256 of the content, lower-case hex (also the stored file's name). */
  sha256: string;
  /** The user who uploaded it. */
  uploader: string;
  /** ISO 8601. */
  at: string;
}

/** Longest file name kept, in UTF-16 code units (the extension is kept when a name is cut). */
export const MAX_FILE_NAME_LENGTH = 180;

/** The name a file gets when the uploader's name has nothing left once cleaned. */
export const FALLBACK_FILE_NAME = 'attachment';

/**
 * Media types a download is labelled with as uploaded: none of them is rendered as active content by a
 * browser. Anything else (HTML, SVG, XML, JavaScript…) is served as `application/octet-stream`.
 */
export const SAFE_MEDIA_TYPES: ReadonlySet<string> = new Set([
  'application/pdf',
  'application/zip',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'text/plain',
  'text/csv',
]);

/** Control characters (C0, DEL, C1), path separators and characters Windows refuses in a file name. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters being removed.
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f/\\:*?"<>|]/g;

/**
 * A file name safe to store and to send back: only its last path segment, without control characters,
 * separators or reserved characters, without leading dots (no hidden or `..` names), at most
 * {@link MAX_FILE_NAME_LENGTH} long with its extension kept; {@link FALLBACK_FILE_NAME} when nothing is left.
 */
export function sanitiseFileName(raw: string): string {
  const lastSegment = raw.split(/[/\\]/).pop() ?? '';
  let name = lastSegment
    .normalize('NFC')
    .replace(UNSAFE_CHARACTERS, '')
    .replace(/^[\s.]+/, '')
    .replace(/[\s.]+$/, '')
    .trim();
  if (name.length > MAX_FILE_NAME_LENGTH) {
    const dot = name.lastIndexOf('.');
    const extension = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
    name = Array.from(name.slice(0, MAX_FILE_NAME_LENGTH - extension.length))
      .join('')
      .replace(/[\uD800-\uDBFF]$/, '')
      .concat(extension);
  }
  return name || FALLBACK_FILE_NAME;
}

/** The declared media type, lower-case and without parameters; `application/octet-stream` when absent or malformed. */
export function declaredMediaType(contentType: string | undefined): string {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type) ? type : 'application/octet-stream';
}

/** The `Content-Type` a download is served with: the stored type when safe, else `application/octet-stream`. */
export function servedMediaType(stored: string): string {
  return SAFE_MEDIA_TYPES.has(stored) ? stored : 'application/octet-stream';
}

/** RFC 8187 `value-chars`: attr-char is kept, every other UTF-8 byte is percent-encoded. */
function encodeExtValue(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** `Content-Disposition: attachment; filename*=UTF-8''…` (RFC 6266 section 4.3, RFC 8187). */
export function contentDisposition(fileName: string): string {
  return `attachment; filename*=UTF-8''${encodeExtValue(fileName)}`;
}

/** SHA-256 of `bytes`, lower-case hex (Web Crypto: the same in Node and in the browser). */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** True for an upload (`POST /api/resource/<doctype>/<name>/attachments`): its body limit is the attachments'. */
export function isAttachmentUpload(method: string, path: string): boolean {
  return method === 'POST' && /^\/api\/resource\/[^/]+\/[^/]+\/attachments$/.test(path);
}

/** A byte count in words: `10 MiB`, `512 KiB`, `300 bytes`. */
export function sizeInWords(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** 413 `payload_too_large` for a file past `attachments.max_bytes`, naming the limit. */
export function attachmentTooLarge(maxBytes: number): PlatformError {
  return new PlatformError(
    'payload_too_large',
    `An attachment is at most ${sizeInWords(maxBytes)} (${maxBytes} bytes).`,
    { status: 413, headers: { Connection: 'close' } },
  );
}
