import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openA256Gcm, openA256GcmWebCrypto } from '../../../backend/security/jwe/open-gcm';

function seal(plaintext: string, aad: string) {
  const cek = new Uint8Array(randomBytes(32));
  const iv = new Uint8Array(randomBytes(12));
  const cipher = createCipheriv('aes-256-gcm', cek, iv);
  cipher.setAAD(Buffer.from(aad, 'latin1'));
  const ciphertext = new Uint8Array(Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]));
  return { cek, iv, ciphertext, tag: new Uint8Array(cipher.getAuthTag()) };
}

const openers = { 'node:crypto': openA256Gcm, WebCrypto: openA256GcmWebCrypto };

describe.each(Object.entries(openers))('openA256Gcm with %s', (_, open) => {
  it('opens sealed content, the empty one included', async () => {
    for (const text of ['{"a":1,"b":"é"}', '']) {
      const { cek, iv, ciphertext, tag } = seal(text, 'eyJhbGciOiJSU0EtT0FFUC0yNTYifQ');
      const plaintext = await open(cek, iv, 'eyJhbGciOiJSU0EtT0FFUC0yNTYifQ', ciphertext, tag);
      expect(new TextDecoder().decode(plaintext)).toBe(text);
    }
  });

  it('refuses other additional data, a flipped ciphertext bit and a flipped tag bit', async () => {
    const { cek, iv, ciphertext, tag } = seal('{"x":true}', 'header');
    await expect(open(cek, iv, 'headeR', ciphertext, tag)).rejects.toThrow();
    const flipped = ciphertext.slice();
    flipped[0]! ^= 1;
    await expect(open(cek, iv, 'header', flipped, tag)).rejects.toThrow();
    const badTag = tag.slice();
    badTag[15]! ^= 0x80;
    await expect(open(cek, iv, 'header', ciphertext, badTag)).rejects.toThrow();
  });
});
