import { GeneratedKeyRing } from './generated-key-ring';
import { generateKeyMaterial } from './key-material';
import type { KeyStoreOptions } from './key-store';

/**
 * A key store held in memory only: for tests and for processes that must not touch the disk. Rotation is a
 * method call; the retired key keeps decrypting for `graceMs` on the injected clock.
 */
export class MemoryKeyStore extends GeneratedKeyRing {
  private constructor(options: KeyStoreOptions) {
    super(options, generateKeyMaterial);
  }

  /** Creates a store holding one freshly generated active key. */
  static async create(options: KeyStoreOptions): Promise<MemoryKeyStore> {
    const store = new MemoryKeyStore(options);
    await store.rotate();
    return store;
  }
}
