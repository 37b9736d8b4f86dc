/**
 * Sealing small secrets a connector must keep in the store — a refresh token
 * its provider rotated — so a copy of the database does not hand them out:
 * AES-256-GCM with a key derived (SHA-256) from `store.encryption_key` /
 * THREADGATE_STORE_ENCRYPTION_KEY, a fresh 96-bit IV per seal, the auth tag
 * checked on open. Sealed text is `v1.<iv>.<ciphertext+tag>` (base64url), so
 * a later scheme can sit beside it. A value sealed under another key, or
 * altered, does not open (SealedValueError), and nothing says why beyond that.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Sealer } from '../connector/api.ts';
import { ThreadgateError } from '../base/errors.ts';

export class SealedValueError extends ThreadgateError {
  readonly code = 'TG_SEALED_VALUE_INVALID';
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function createSealer(key: string): Sealer {
  const secret = createHash('sha256').update(key, 'utf8').digest();
  return Object.freeze({
    seal(plain: string): string {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', secret, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${VERSION}.${iv.toString('base64url')}.${body.toString('base64url')}`;
    },
    open(sealed: string): string {
      const [version, iv, body] = sealed.split('.');
      if (version !== VERSION || iv === undefined || body === undefined) throw new SealedValueError('not a sealed value of this gateway');
      const bytes = Buffer.from(body, 'base64url');
      try {
        const decipher = createDecipheriv('aes-256-gcm', secret, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch (err) {
        throw new SealedValueError('the sealed value does not open with this key (another key, or altered)', { cause: err });
      }
    },
  });
}
