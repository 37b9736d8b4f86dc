/**
 * The check most inbound routes of a connector need: a header carries an
 * HMAC of the request's bytes (and often of a timestamp) under a shared
 * secret. Re-exported by api.ts.
 *
 *   const verdict = verifyHmacSignature({
 *     secret: config.inbound_secret,
 *     payload: request.rawBody,
 *     signature: request.headers['x-chatline-signature'],
 *     prefix: 'sha256=',
 *   });
 *   if (!verdict.ok) throw new RouteError(401, 'TG_SIGNATURE_INVALID', verdict.message);
 *
 * The digest is compared in constant time, as bytes (hex in either case, and
 * base64 with or without padding, are the same signature). A header may hold
 * several signatures (`separator`), as during a key rotation: one matching is
 * enough. With `timestamp`, the sender's time must lie within the tolerance
 * either way; sign it yourself into `payload` as the sender's scheme does.
 * Messages never carry the signature or the secret.
 */
import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';

export interface HmacSignatureCheck {
  /** The shared secret: its text (UTF-8), its bytes, or a KeyObject made once (faster: see createSecretKey). */
  secret: string | Buffer | KeyObject;
  /** What the sender signed: the raw body, or the parts of its scheme in order (`[timestamp, '.', body]`). */
  payload: string | Buffer | readonly (string | Buffer)[];
  /** The header's value as received. */
  signature: string | readonly string[] | undefined;
  /** Default `sha256`. */
  algorithm?: 'sha1' | 'sha256' | 'sha384' | 'sha512';
  /** How the digest is written. Default `hex`. */
  encoding?: 'hex' | 'base64' | 'base64url';
  /** What stands before each digest, e.g. `sha256=` or `v1,`; a signature without it does not count. */
  prefix?: string;
  /** Between several signatures in one header, e.g. `' '`; default: the header is one signature. */
  separator?: string;
  /** The sender's time in Unix seconds (a header's text) and how far from now it may lie, either way. */
  timestamp?: { value: string | number | undefined; toleranceSeconds: number; nowSeconds?: number };
}

export type HmacRefusal = 'missing' | 'malformed' | 'too_old' | 'too_new' | 'mismatch';

export type HmacVerdict = { ok: true } | { ok: false; reason: HmacRefusal; message: string };

const MESSAGES: Record<HmacRefusal, string> = {
  missing: 'the signature (or its timestamp) is missing',
  malformed: 'the timestamp is not a number of seconds',
  too_old: 'the timestamp is too old',
  too_new: 'the timestamp is too far in the future',
  mismatch: 'no signature matches',
};

const refused = (reason: HmacRefusal): HmacVerdict => ({ ok: false, reason, message: MESSAGES[reason] });

export function verifyHmacSignature(check: HmacSignatureCheck): HmacVerdict {
  const header = Array.isArray(check.signature) ? check.signature.join(check.separator ?? ',') : (check.signature as string | undefined);
  if (header === undefined || header.trim() === '') return refused('missing');
  if (check.timestamp) {
    const late = timestampRefusal(check.timestamp);
    if (late) return refused(late);
  }
  const hmac = createHmac(check.algorithm ?? 'sha256', check.secret);
  for (const part of typeof check.payload === 'string' || Buffer.isBuffer(check.payload) ? [check.payload] : check.payload) hmac.update(part);
  const expected = hmac.digest();
  const encoding = check.encoding ?? 'hex';
  const prefix = check.prefix ?? '';
  const candidates = check.separator === undefined ? [header] : header.split(check.separator);
  let matched = false;
  for (const raw of candidates) {
    const candidate = raw.trim();
    if (!candidate.startsWith(prefix)) continue;
    const given = decode(candidate.slice(prefix.length), encoding);
    // Every candidate is compared, matched or not: the time taken does not say which one matched.
    if (given !== undefined && given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  return matched ? { ok: true } : refused('mismatch');
}

function timestampRefusal({ value, toleranceSeconds, nowSeconds }: NonNullable<HmacSignatureCheck['timestamp']>): HmacRefusal | undefined {
  if (value === undefined || value === '') return 'missing';
  const seconds = typeof value === 'number' ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(seconds)) return 'malformed';
  const now = nowSeconds ?? Math.floor(Date.now() / 1000);
  if (now - seconds > toleranceSeconds) return 'too_old';
  if (seconds - now > toleranceSeconds) return 'too_new';
  return undefined;
}

/** The digest's bytes, or undefined when the text is not of that encoding. */
function decode(text: string, encoding: 'hex' | 'base64' | 'base64url'): Buffer | undefined {
  if (encoding === 'hex') return /^(?:[0-9a-f]{2})+$/i.test(text) ? Buffer.from(text, 'hex') : undefined;
  const alphabet = encoding === 'base64' ? /^[A-Za-z0-9+/]+={0,2}$/ : /^[A-Za-z0-9_-]+={0,2}$/;
  return alphabet.test(text) ? Buffer.from(text, encoding) : undefined;
}
