/**
 * Signed, expiring links to the file store: `/files/<id>?e=<expires>&s=<sig>`,
 * where `e` is the expiry in Unix seconds and `s` the HMAC-SHA256 of
 * `<id>.<e>` (base64url, compared in constant time). The signature is the
 * whole authorisation of a download, so the link can be posted into a chat
 * and opened by whoever the platform shows it to, until it expires.
 *
 * The key must be the same on every replica and survive restarts, or links
 * posted yesterday would stop working: it is derived (HKDF-SHA256, a fixed
 * label) from `store.encryption_key` when that is set, and otherwise 32
 * random bytes kept in the store under a connector name no connector can
 * have (names are `[a-z0-9-]+`), written insert-if-absent and read back, so
 * replicas starting together agree on the first one written.
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Store } from '../store/store.ts';
import { FileLinkKeyError } from './errors.ts';

export type LinkCheck = 'ok' | 'bad-signature' | 'expired';

export interface FileLinks {
  /** `/files/<id>?e=…&s=…`, valid until `expiresAt` (ms, taken down to the whole second). */
  linkFor(id: string, expiresAt: number): string;
  /** Whether `s` signs `id` and `e`, and `e` (Unix seconds) is still ahead of `now` (ms). */
  verify(id: string, e: unknown, s: unknown, now: number): LinkCheck;
}

export const FILES_PATH = '/files';
/** The reserved owner of the gateway's own state entries; never a connector name. */
export const GATEWAY_STATE_OWNER = '_gateway';
export const LINK_KEY_STATE = 'file-links.key';
const KEY_BYTES = 32;
const HKDF_LABEL = 'threadgate file links';

/** A file id as the store makes them (22 base64url characters), with room for longer ones. */
const ID = /^[A-Za-z0-9_-]{22,64}$/;
const EXPIRES = /^[0-9]{1,12}$/;

export function createFileLinks(key: Buffer): FileLinks {
  if (key.length < KEY_BYTES) throw new RangeError(`a file link key has at least ${KEY_BYTES} bytes`);
  const sign = (id: string, e: string): string => createHmac('sha256', key).update(`${id}.${e}`).digest('base64url');
  return Object.freeze({
    linkFor(id: string, expiresAt: number): string {
      const e = String(Math.floor(expiresAt / 1000));
      return `${FILES_PATH}/${encodeURIComponent(id)}?e=${e}&s=${sign(id, e)}`;
    },
    verify(id: string, e: unknown, s: unknown, now: number): LinkCheck {
      if (typeof e !== 'string' || typeof s !== 'string' || !ID.test(id) || !EXPIRES.test(e)) return 'bad-signature';
      // Compared as the exact text: base64url decoding would forgive stray characters.
      const expected = Buffer.from(sign(id, e), 'ascii');
      const given = Buffer.from(s, 'utf8');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad-signature';
      return now >= Number(e) * 1000 ? 'expired' : 'ok';
    },
  });
}

/** The key of `store.encryption_key`: the same wherever the same setting is. */
export function deriveLinkKey(encryptionKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', encryptionKey, '', HKDF_LABEL, KEY_BYTES));
}

/**
 * The signing key every replica shares: derived from `encryptionKey` when given, else the one kept in the store
 * (made by the first gateway that needed it; a replica that lost the race reads the winner's).
 */
export async function loadLinkKey(store: Store, encryptionKey: string | undefined, now: () => number = Date.now): Promise<Buffer> {
  if (encryptionKey !== undefined) return deriveLinkKey(encryptionKey);
  const fresh = randomBytes(KEY_BYTES).toString('base64url');
  await store.write((tx) => tx.state.setIfAbsent(GATEWAY_STATE_OWNER, LINK_KEY_STATE, fresh, now()));
  const kept = await store.read.state.get(GATEWAY_STATE_OWNER, LINK_KEY_STATE);
  const key = typeof kept === 'string' ? Buffer.from(kept, 'base64url') : Buffer.alloc(0);
  if (key.length !== KEY_BYTES) throw new FileLinkKeyError(`the file link key kept in the store (${GATEWAY_STATE_OWNER}/${LINK_KEY_STATE}) is not ${KEY_BYTES} bytes`);
  return key;
}
