import {
  createPrivateKey,
  createPublicKey,
  generateKeyPair as generateKeyPairCb,
  webcrypto,
} from 'node:crypto';
import { promisify } from 'node:util';
import { calculateJwkThumbprint } from 'jose';
import { type EncryptionJwk, JWE_ALG } from '../../../src/protocol';

/** WebCrypto's key type (Node's and the browser's are the same API). */
type CryptoKey = webcrypto.CryptoKey;

const generateKeyPair = promisify(generateKeyPairCb);

/** RSA modulus size of generated keys; docs/security.md#one-allowlist-for-jwe requires at least 2048 bits. */
export const RSA_MODULUS_BITS = 2048;

/** A freshly generated or loaded key pair: PKCS#8 PEM for storage, the pieces the server uses. */
export interface KeyMaterial {
  kid: string;
  privatePem: string;
  /** The private key, non-extractable (see `EncryptionKey.privateKey`). */
  privateKey: CryptoKey;
  publicJwk: EncryptionJwk;
}

/** Generates an RSA-OAEP-256 key pair; the `kid` is its RFC 7638 thumbprint, so it is unique per key. */
export async function generateKeyMaterial(bits = RSA_MODULUS_BITS): Promise<KeyMaterial> {
  const { privateKey } = await generateKeyPair('rsa', { modulusLength: bits, publicExponent: 0x10001 });
  const privatePem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  return loadKeyMaterial(privatePem);
}

/**
 * Builds the server-side pieces from a stored PKCS#8 PEM: the non-extractable WebCrypto decryption key and
 * the public JWK (only `kty n e` are taken from the key, so private members can never leak into the JWKS).
 * Rejects keys under 2048 bits.
 */
export async function loadKeyMaterial(privatePem: string): Promise<KeyMaterial> {
  const keyObject = createPrivateKey(privatePem);
  const bits = keyObject.asymmetricKeyDetails?.modulusLength ?? 0;
  if (keyObject.asymmetricKeyType !== 'rsa' || bits < RSA_MODULUS_BITS) {
    throw new Error(`encryption keys must be RSA of at least ${RSA_MODULUS_BITS} bits`);
  }
  const jwk = createPublicKey(keyObject).export({ format: 'jwk' }) as { n: string; e: string };
  const kid = await calculateJwkThumbprint({ kty: 'RSA', n: jwk.n, e: jwk.e }, 'sha256');
  const der = keyObject.export({ format: 'der', type: 'pkcs8' });
  const privateKey = (await webcrypto.subtle.importKey(
    'pkcs8',
    der,
    { name: 'RSA-OAEP', hash: 'SHA-256' },
    false,
    ['decrypt'],
  )) as CryptoKey;
  const publicJwk: EncryptionJwk = { kty: 'RSA', use: 'enc', alg: JWE_ALG, kid, n: jwk.n, e: jwk.e };
  return { kid, privatePem, privateKey, publicJwk };
}
