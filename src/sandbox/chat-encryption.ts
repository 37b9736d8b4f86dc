/**
 * Encrypted chats (spec 01, "Chat" is_encrypted / encrypted_symmetric_key and
 * the decrypted-chats listing).
 *
 * Each encrypted chat has its own AES-256-GCM key; every message is stored
 * as base64(iv ‖ ciphertext ‖ tag) and the chat keeps only that key
 * RSA-OAEP(SHA-256)-encrypted to the organization's public key. The sandbox
 * never keeps the AES key, the plaintext or the organization's private key:
 * the control API hands the private key out once when it enables the feature,
 * and the decrypted-chats request brings it in X-PRIVATE-KEY, where it lives
 * only for that request (docs/decisions/sandbox-chat-encryption.md).
 */
import {
  constants,
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  generateKeyPairSync,
  privateDecrypt,
  publicEncrypt,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { SandboxBadRequestError } from './errors.ts';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const OAEP = { padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' } as const;

export interface OrganizationKeyPair {
  publicKeyPem: string;
  privateKeyPem: string;
}

export function generateOrganizationKeys(): OrganizationKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** The one-line form X-PRIVATE-KEY carries: each line break written as backslash + n. */
export function toOneLineKey(pem: string): string {
  return pem.trimEnd().replace(/\r?\n/g, '\\n');
}

/** An encryptor for one new chat: encrypts its messages, and tells its encrypted key. */
export function newChatCipher(publicKeyPem: string): { encryptedSymmetricKey: string; encrypt(text: string): string } {
  const key = randomBytes(32);
  const encryptedSymmetricKey = publicEncrypt({ key: publicKeyPem, ...OAEP }, key).toString('base64');
  return {
    encryptedSymmetricKey,
    encrypt(text) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64');
    },
  };
}

/**
 * Reads the X-PRIVATE-KEY header: a PEM on one line, line breaks escaped as
 * `\n` (one backslash) or `\\n` (two, as the reference client writes them).
 * 400 when missing or not an RSA private key.
 */
export function parsePrivateKeyHeader(header: string | string[] | undefined): KeyObject {
  const raw = Array.isArray(header) ? header[0] : header;
  if (raw === undefined || raw.trim() === '') throw new SandboxBadRequestError('The X-PRIVATE-KEY header is required.');
  const pem = raw.trim().replace(/\\{1,2}n/g, '\n');
  try {
    const key = createPrivateKey({ key: pem, format: 'pem' });
    if (key.asymmetricKeyType !== 'rsa') throw new Error('not RSA');
    return key;
  } catch {
    throw new SandboxBadRequestError('X-PRIVATE-KEY is not a valid unencrypted RSA private key.');
  }
}

/** A decryptor for one chat, or 400 when the key does not open the chat's symmetric key. */
export function chatDecipher(privateKey: KeyObject, encryptedSymmetricKey: string): (encryptedMessage: string) => string {
  let key: Buffer;
  try {
    key = privateDecrypt({ key: privateKey, ...OAEP }, Buffer.from(encryptedSymmetricKey, 'base64'));
  } catch {
    throw new SandboxBadRequestError("X-PRIVATE-KEY does not match the organization's public key.");
  }
  return (encryptedMessage) => {
    const bytes = Buffer.from(encryptedMessage, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  };
}
