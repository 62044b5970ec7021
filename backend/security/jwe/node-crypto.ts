import type * as NodeCrypto from 'node:crypto';

/**
 * A Node built-in module when this runs on Node, undefined in a browser (the offline mock runs the same app
 * there). Taken through `process.getBuiltinModule`, so no bundler for the browser sees a Node import.
 */
export function nodeBuiltin<T>(id: string): T | undefined {
  return (
    globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
  ).process?.getBuiltinModule?.(id) as T | undefined;
}

/** node:crypto on Node, undefined in a browser. */
export const nodeCrypto = nodeBuiltin<typeof NodeCrypto>('node:crypto');
