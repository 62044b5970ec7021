import { type EncryptionJwk, serviceKidPrefix } from '../../../src/protocol';
import type { EncryptionKey, KeyStore } from './key-store';

/**
 * A MACROSERVICE service's own encryption keys (docs/security.md#encrypted-to-the-owning-service): the
 * keys of `inner` (the key files in the service's own data directory, rotated by `m keys rotate` like any
 * other ring) under kids that name the service, `svc:<service>:<thumbprint>`. The files keep the bare
 * thumbprint; only what the service publishes and looks up carries the prefix, so a JWE names the one
 * service able to open it.
 */
export class ServiceKeyStore implements KeyStore {
  readonly #inner: KeyStore;
  readonly #prefix: string;

  constructor(inner: KeyStore, service: string) {
    this.#inner = inner;
    this.#prefix = serviceKidPrefix(service);
  }

  async active(): Promise<EncryptionKey> {
    return this.#named(await this.#inner.active());
  }

  async usable(): Promise<EncryptionKey[]> {
    return (await this.#inner.usable()).map((key) => this.#named(key));
  }

  async find(kid: string): Promise<EncryptionKey | undefined> {
    if (!kid.startsWith(this.#prefix)) return undefined;
    const key = await this.#inner.find(kid.slice(this.#prefix.length));
    return key && this.#named(key);
  }

  /** The public keys the service publishes with its manifest, active first. */
  async publicKeys(): Promise<EncryptionJwk[]> {
    return (await this.usable()).map((key) => ({ ...key.publicJwk }));
  }

  /** The same key under the service's kid; its private key is the same object, not a new import. */
  #named(key: EncryptionKey): EncryptionKey {
    const kid = `${this.#prefix}${key.kid}`;
    return { ...key, kid, publicJwk: { ...key.publicJwk, kid } };
  }
}
