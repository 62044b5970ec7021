import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keyEncryptionKeyFromEnv } from '../../../backend/security/keys/key-encryption-key';

const temp = mkdtempSync(join(tmpdir(), 'kek-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const SECRET = 'a-key-encryption-key-of-at-least-32-characters';

describe('keyEncryptionKeyFromEnv (docs/operators.md#n-gateways)', () => {
  it('reads the same key from PLATFORM_KEY_ENCRYPTION_KEY or from the file PLATFORM_KEY_ENCRYPTION_KEY_FILE', () => {
    const file = join(temp, 'kek');
    writeFileSync(file, `${SECRET}\n`);
    const fromEnv = keyEncryptionKeyFromEnv({ PLATFORM_KEY_ENCRYPTION_KEY: SECRET })!;
    const fromFile = keyEncryptionKeyFromEnv({ PLATFORM_KEY_ENCRYPTION_KEY_FILE: file })!;
    const plaintext = Buffer.from('a private key');
    const wrapped = fromEnv.wrap(plaintext);
    expect(wrapped).not.toContain(plaintext.toString('base64url'));
    expect(fromFile.unwrap(wrapped)).toEqual(plaintext);
  });

  it('is absent when neither is set, and refuses a key shorter than 32 characters', () => {
    expect(keyEncryptionKeyFromEnv({})).toBeUndefined();
    expect(() => keyEncryptionKeyFromEnv({ PLATFORM_KEY_ENCRYPTION_KEY: 'short' })).toThrow(
      expect.objectContaining({ code: 'config_invalid' }),
    );
  });

  it('refuses to unwrap with another key (config_invalid naming the variable)', () => {
    const wrapped = keyEncryptionKeyFromEnv({ PLATFORM_KEY_ENCRYPTION_KEY: SECRET })!.wrap(Buffer.from('k'));
    const other = keyEncryptionKeyFromEnv({ PLATFORM_KEY_ENCRYPTION_KEY: `${SECRET}-other` })!;
    expect(() => other.unwrap(wrapped)).toThrow(
      expect.objectContaining({
        code: 'config_invalid',
        message: expect.stringContaining('PLATFORM_KEY_ENCRYPTION_KEY'),
      }),
    );
  });
});
