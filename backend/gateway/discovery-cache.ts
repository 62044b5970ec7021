import type { DiscoveryLimits } from './oracle';
import { answerDiscoveryQuery, parseDiscoveryQuery } from './oracle';
import type { ServiceDirectory } from './service-directory';

/** Bodies longer than this are answered without the cache (keeps its memory small and bounded). */
const MAX_CACHED_BODY = 4096;
const MAX_ENTRIES = 256;

/** Answers discovery queries, each distinct body once per directory state. */
export interface DiscoveryAnswers {
  /**
   * The JSON text answering the query in `raw` (body text, or a value the decryption middleware parsed).
   * Throws what `parseDiscoveryQuery` throws.
   */
  answer(raw: unknown): string;
  /** {@link answer} as UTF-8 bytes, encoded once per cached answer (what the server writes). */
  answerBytes(raw: unknown): Uint8Array;
  /** Stops listening to the directory. */
  close(): void;
}

/**
 * The discovery answer depends only on the directory's state and the query, so the serialised answer of a
 * body text is kept until the directory changes (its `subscribe` listener fires), and a repeated query (every
 * Desk boot sends the same one) skips parsing, resolving and serialising (docs/performance.md#the-chain).
 * Browser-safe like the oracle.
 */
export function createDiscoveryAnswers(
  directory: Pick<ServiceDirectory, 'get' | 'ownerOf' | 'list' | 'subscribe'>,
  limits: DiscoveryLimits,
): DiscoveryAnswers {
  const cache = new Map<string, { json: string; bytes?: Uint8Array }>();
  const unsubscribe = directory.subscribe(() => cache.clear());
  const utf8 = new TextEncoder();
  const compute = (raw: unknown) =>
    JSON.stringify(answerDiscoveryQuery(directory, parseDiscoveryQuery(raw, limits)));
  const entry = (raw: unknown) => {
    if (typeof raw !== 'string' || raw.length > MAX_CACHED_BODY) return { json: compute(raw) };
    let hit = cache.get(raw);
    if (hit === undefined) {
      hit = { json: compute(raw) };
      if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
      cache.set(raw, hit);
    }
    return hit;
  };
  return {
    answer: (raw) => entry(raw).json,
    answerBytes(raw) {
      const hit: { json: string; bytes?: Uint8Array } = entry(raw);
      hit.bytes ??= utf8.encode(hit.json);
      return hit.bytes;
    },
    close: unsubscribe,
  };
}
