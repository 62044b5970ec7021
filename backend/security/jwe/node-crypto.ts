import type * as NodeCrypto from 'node:crypto';

/**
 * node:crypto when this runs on Node, undefined in a browser (the offline mock runs the same app there). Taken
 * through `process.getBuiltinModule`, so no bundler for the browser sees a Node import.
 */
export const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as typeof NodeCrypto | undefined;
