import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PlatformError } from '../../http/errors';

/** Environment variable holding the key-encryption key shared by a deployment's gateways. */
export const KEK_ENV = 'PLATFORM_KEY_ENCRYPTION_KEY';
/** Environment variable naming a file that holds it (for secret mounts). */
export const KEK_FILE_ENV = 'PLATFORM_KEY_ENCRYPTION_KEY_FILE';

/** A 256-bit key that wraps the shared private keys (AES-256-GCM); it never leaves the process. */
export interface KeyEncryptionKey {
  wrap(plaintext: Buffer): string;
  unwrap(wrapped: string): Buffer;
}

/**
 * The key-encryption key from `PLATFORM_KEY_ENCRYPTION_KEY` or the file `PLATFORM_KEY_ENCRYPTION_KEY_FILE`
 * (at least 32 characters; hashed with SHA-256 into the AES key), or undefined when neither is set.
 */
export function keyEncryptionKeyFromEnv(env: NodeJS.ProcessEnv): KeyEncryptionKey | undefined {
  let secret = env[KEK_ENV];
  if (!secret && env[KEK_FILE_ENV]) secret = readFileSync(env[KEK_FILE_ENV]!, 'utf8').trim();
  if (!secret) return undefined;
  if (secret.length < 32) {
    throw new PlatformError('config_invalid', `${KEK_ENV} must be at least 32 characters.`);
  }
  return keyEncryptionKey(createHash('sha256').update(secret).digest());
}

/** Wraps with AES-256-GCM: `base64url(iv).base64url(ciphertext).base64url(tag)`. */
export function keyEncryptionKey(key: Buffer): KeyEncryptionKey {
  return {
    wrap(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.');
    },
    unwrap(wrapped) {
      const [iv, body, tag] = wrapped.split('.').map((s) => Buffer.from(s, 'base64url'));
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv!);
        decipher.setAuthTag(tag!);
        return Buffer.concat([decipher.update(body!), decipher.final()]);
      } catch (cause) {
        throw new PlatformError(
          'config_invalid',
          `A shared encryption key could not be unwrapped: is ${KEK_ENV} the same on every gateway?`,
          { cause },
        );
      }
    },
  };
}
