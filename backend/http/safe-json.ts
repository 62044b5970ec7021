import { PlatformError } from './errors';

/** Options of {@link parseSafeJson}. */
export interface SafeJsonOptions {
  /** Deepest nesting accepted; deeper input is rejected before parsing. Default 64. */
  maxDepth?: number;
}

/**
 * Parses JSON text that came from a client: rejects nesting deeper than `maxDepth` (checked on the text,
 * before `JSON.parse` can recurse) and drops `__proto__` / `constructor.prototype` keys so nothing can be
 * polluted (docs/security.md#cheap-checks-first). Throws `PlatformError` 400 `invalid_json`.
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
  try {
    return JSON.parse(text, (key, value) => (key === '__proto__' ? undefined : value));
  } catch {
    throw invalid('The request body is not valid JSON.');
  }
}

function invalid(message: string) {
  return new PlatformError('invalid_json', message, { status: 400 });
}
