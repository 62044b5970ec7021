import { PlatformError } from './errors';

/** Options of {@link parseSafeJson}. */
export interface SafeJsonOptions {
  /** Deepest nesting accepted; deeper input is rejected before parsing. Default 64. */
  maxDepth?: number;
}

/** A lone UTF-16 surrogate: a high one not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * True when `text` can be stored as it is: no NUL character (PostgreSQL text cannot hold it) and no lone
 * UTF-16 surrogate (it has no UTF-8 encoding). Such text is refused at the edge with a 400, so it never
 * reaches the database as a 500.
 */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}

/** 400 `invalid_characters`: a NUL character or a lone surrogate in a value; the value is never echoed. */
export function invalidCharacters(where = 'The request'): PlatformError {
  return new PlatformError(
    'invalid_characters',
    `${where} contains a NUL character or an unpaired surrogate, which cannot be stored.`,
    { status: 400 },
  );
}

/**
 * Parses JSON text that came from a client, plain or decrypted (docs/security.md#cheap-checks-first):
 * - nesting deeper than `maxDepth` is refused on the text, before `JSON.parse` can recurse (400 `invalid_json`);
 * - a `__proto__` key, or a `constructor` key holding an object with a `prototype` key, anywhere refuses the
 *   whole body (400 `invalid_json`), so nothing downstream can be polluted and an encrypted and a plain body
 *   are treated alike;
 * - a NUL character or a lone surrogate in any key or string is 400 `invalid_characters`.
 */
export function parseSafeJson(text: string, options: SafeJsonOptions = {}): unknown {
  const maxDepth = options.maxDepth ?? 64;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++;
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) {
      if (++depth > maxDepth) throw invalid(`JSON nested deeper than ${maxDepth} levels.`);
    } else if (ch === 0x7d || ch === 0x5d) depth--;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('The request body is not valid JSON.');
  }
  // The usual body skips the walk: a forbidden key needs its name or a `\u` escape, and a NUL or a lone
  // surrogate can only come from a `\u` escape (decoded UTF-8 text holds neither).
  if (/\\u|__proto__|constructor/.test(text) || !isStorableText(text)) checkValue(value);
  return value;
}

function checkValue(value: unknown): void {
  if (typeof value === 'string') {
    if (!isStorableText(value)) throw invalidCharacters('A value');
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) checkValue(item);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (key === '__proto__') throw forbiddenKey();
    if (!isStorableText(key)) throw invalidCharacters('A key');
    const item = record[key];
    if (
      key === 'constructor' &&
      typeof item === 'object' &&
      item !== null &&
      Object.hasOwn(item, 'prototype')
    ) {
      throw forbiddenKey();
    }
    checkValue(item);
  }
}

function forbiddenKey(): PlatformError {
  return invalid('The JSON body has a forbidden key (__proto__ or constructor.prototype).');
}

function invalid(message: string) {
  return new PlatformError('invalid_json', message, { status: 400 });
}
