import { PlatformError } from '../../http/errors';
import { parseSafeJson } from '../../http/safe-json';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses a decrypted payload (docs/security.md#cheap-checks-first): strict UTF-8, then the same checks as a
 * plain JSON body ({@link parseSafeJson}: nesting depth, `__proto__` / `constructor.prototype` keys refused
 * with 400 `invalid_json`, NUL and lone surrogates refused with 400 `invalid_characters`). Never echoes the
 * plaintext.
 */
export function parseDecryptedJson(plaintext: Uint8Array): unknown {
  let text: string;
  try {
    text = utf8.decode(plaintext);
  } catch {
    throw new PlatformError('invalid_json', 'The decrypted payload is not UTF-8.', { status: 400 });
  }
  return parseSafeJson(text);
}
