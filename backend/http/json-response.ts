import { PII_MASK } from '../../src/protocol';

/** Headers of a JSON answer that must not be cached (shared: nothing changes them). */
const NO_STORE_JSON: ResponseInit = {
  status: 200,
  headers: { 'cache-control': 'no-store', 'content-type': 'application/json' },
};

/**
 * `200` with `value` as JSON and `Cache-Control: no-store`, as a Response with a string body and a plain
 * header object, which @hono/node-server writes as it is (`c.header` and `c.json` build a Headers object
 * that it then reads back). For a handler whose request nothing before it gave a header with `c.header`.
 */
export function noStoreJson(value: unknown): Response {
  return new Response(JSON.stringify(value), NO_STORE_JSON);
}

/**
 * Stands in for the mask while a body is serialised. PostgreSQL stores no NUL character in text or jsonb,
 * so no stored value equals it.
 */
const MASK_STAND_IN = '\u0000pii-mask\u0000';
const STAND_IN_JSON = JSON.stringify(MASK_STAND_IN);
/** The mask as a JSON string of `\uXXXX` escapes: the same value to any JSON parser, in ASCII. */
const ESCAPED_MASK_JSON = `"${[...PII_MASK]
  .map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
  .join('')}"`;

/**
 * `value` as JSON text, each {@link PII_MASK} written with `\uXXXX` escapes (RFC 8259, section 7). The
 * mask is not ASCII: one in a page of records would make V8 build the whole text as a two-byte string and
 * encode all of it to UTF-8 on the way out, which costs a masked page more than the rest of its
 * serialisation (docs/security.md#what-it-costs). Escaped, the text stays one byte a character.
 */
export function jsonWithEscapedMask(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (v === PII_MASK ? MASK_STAND_IN : v));
  return text.includes(STAND_IN_JSON) ? text.replaceAll(STAND_IN_JSON, ESCAPED_MASK_JSON) : text;
}

/** The JSON text of an answer whose records may carry masked fields: {@link jsonWithEscapedMask} if so. */
export function recordsJsonText(value: unknown, masked: boolean): string {
  return masked ? jsonWithEscapedMask(value) : JSON.stringify(value);
}

/** The `Content-Type` of a JSON answer. */
export const JSON_CONTENT_TYPE = { 'content-type': 'application/json' } as const;
