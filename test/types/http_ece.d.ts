/**
 * The part of `http_ece` (Encrypted Content-Encoding for HTTP, RFC 8188; the library web-push
 * encrypts with) the Web Push fake uses to decrypt payloads as a browser would. It ships no types.
 */
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto';

  export interface EceParams {
    version?: 'aes128gcm' | 'aesgcm' | 'aesgcm128';
    /** The receiver's ECDH key pair (decrypting). */
    privateKey?: ECDH;
    /** The peer's public key, base64url or bytes (aesgcm; aes128gcm reads the sender's from the header). */
    dh?: string | Buffer;
    /** The subscription's auth secret, base64url or bytes. */
    authSecret?: string | Buffer;
    salt?: string | Buffer;
    keyid?: string | Buffer;
    rs?: number;
  }

  export function decrypt(buffer: Buffer, params: EceParams): Buffer;
  export function encrypt(buffer: Buffer, params: EceParams): Buffer;
}
