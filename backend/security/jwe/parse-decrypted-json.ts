import { PlatformError } from '../../http/errors';
import { parseSafeJson } from '../../http/safe-json';

const utf8 = new TextDecoder('utf-8', { fatal: true });

function invalid(message: string): PlatformError {
  return new PlatformError('invalid_json', message, { status: 400 });
}

/**
 * Parses a decrypted payload (docs/security.md#cheap-checks-first): strict UTF-8, nesting depth limited
 * before parsing, and a `__proto__` or `constructor.prototype` key anywhere refuses the whole body with 400
 * `invalid_json` (rather than silently dropping it), so nothing downstream can be polluted. Never echoes the
 * plaintext.
 */
export function parseDecryptedJson(plaintext: Uint8Array): unknown {
  let text: string;
  try {
    text = utf8.decode(plaintext);
  } catch {
    throw invalid('The decrypted payload is not UTF-8.');
  }
  const value = parseSafeJson(text);
  // The fast path skips the second walk for the usual body: any spelling of the keys needs `proto` or `\u`.
  if (/proto|\\u/i.test(text)) {
    let poisoned = false;
    JSON.parse(text, (key, v) => {
      if (key === '__proto__') poisoned = true;
      return v;
    });
    if (poisoned || hasConstructorPrototype(value))
      throw invalid('The decrypted payload has a forbidden key.');
  }
  return value;
}

function hasConstructorPrototype(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(hasConstructorPrototype);
  const record = value as Record<string, unknown>;
  const ctor = Object.hasOwn(record, 'constructor') ? record.constructor : undefined;
  if (typeof ctor === 'object' && ctor !== null && Object.hasOwn(ctor, 'prototype')) return true;
  return Object.values(record).some(hasConstructorPrototype);
}
