import { PlatformError } from '../http/errors';

/**
 * Where a page of the default list order (`modified DESC`, then `name`) ends: the next page starts after
 * this record (keyset paging, docs/http-api.md#list-parameters), so reading deep into a list walks the
 * order's index from there instead of counting `limit_start` entries off from the top.
 */
export interface ListCursor {
  /** The record's `modified`, UTC, to the microsecond the database keeps (`2026-01-01T00:00:00.000001Z`). */
  modified: string;
  name: string;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
/** Longer than any record name; a cursor past it was not made here. */
const MAX_CURSOR_LENGTH = 600;

function invalid(message: string): PlatformError {
  return new PlatformError('invalid_paging', message, { status: 400 });
}

// base64url (RFC 4648 section 5) of UTF-8, with btoa/atob: the memory store also runs in browsers.
function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

/**
 * Whether a `modified` of a cursor names an instant the database can compare with, as one it made would:
 * its calendar date and time exist as written (`Date.parse` rolls `02-30` into March and `24:00` into the
 * next day) and its year is not 0 (which the database does not have). Either was a 500 there.
 */
function storable(modified: string): boolean {
  const time = Date.parse(modified);
  if (Number.isNaN(time) || modified.startsWith('0000')) return false;
  return new Date(time).toISOString().slice(0, 19) === modified.slice(0, 19);
}

/** The opaque `cursor` parameter for the page after `last` (base64url of a JSON pair). */
export function encodeListCursor(last: ListCursor): string {
  return toBase64Url(JSON.stringify([last.modified, last.name]));
}

/** Reads a `cursor` parameter {@link encodeListCursor} made; anything else is 400 `invalid_paging`. */
export function decodeListCursor(raw: string): ListCursor {
  const refused = invalid('cursor is not one a list answered as next_cursor.');
  if (raw.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(raw)) throw refused;
  let pair: unknown;
  try {
    pair = JSON.parse(fromBase64Url(raw));
  } catch {
    throw refused;
  }
  if (!Array.isArray(pair) || pair.length !== 2) throw refused;
  const [modified, name] = pair as unknown[];
  if (typeof modified !== 'string' || !TIMESTAMP.test(modified) || !storable(modified)) throw refused;
  if (typeof name !== 'string' || name === '') throw refused;
  return { modified, name };
}
