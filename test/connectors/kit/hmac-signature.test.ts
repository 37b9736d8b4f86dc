/**
 * `verifyHmacSignature` (threadgate/connector): a signature header checked
 * against digests made here with node:crypto, the way senders make them.
 */
import { createHmac, createSecretKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyHmacSignature } from '../../../src/connector/api.ts';

const SECRET = 'shared-secret-1';
const BODY = Buffer.from('{"thread_id":"t1","messages":[]}');
const hex = (payload: string | Buffer, secret = SECRET, algorithm = 'sha256') => createHmac(algorithm, secret).update(payload).digest('hex');
const base64 = (payload: string | Buffer, secret = SECRET) => createHmac('sha256', secret).update(payload).digest('base64');
const NOW = 1_800_000_000;

describe('verifyHmacSignature', () => {
  it('takes a hex digest with its prefix, in either case, and refuses another secret, body or prefix', () => {
    const good = `sha256=${hex(BODY)}`;
    expect(verifyHmacSignature({ secret: SECRET, payload: BODY, signature: good, prefix: 'sha256=' })).toEqual({ ok: true });
    expect(verifyHmacSignature({ secret: SECRET, payload: BODY, signature: good.toUpperCase().replace('SHA256=', 'sha256='), prefix: 'sha256=' })).toEqual({ ok: true });
    expect(verifyHmacSignature({ secret: SECRET, payload: BODY, signature: `sha256=${hex(BODY, 'other')}`, prefix: 'sha256=' })).toMatchObject({ ok: false, reason: 'mismatch' });
    expect(verifyHmacSignature({ secret: SECRET, payload: Buffer.from(`${BODY} `), signature: good, prefix: 'sha256=' })).toMatchObject({ ok: false, reason: 'mismatch' });
    expect(verifyHmacSignature({ secret: SECRET, payload: BODY, signature: hex(BODY), prefix: 'sha256=' })).toMatchObject({ ok: false, reason: 'mismatch' });
    expect(verifyHmacSignature({ secret: SECRET, payload: BODY, signature: 'sha256=zz', prefix: 'sha256=' })).toMatchObject({ ok: false, reason: 'mismatch' });
  });

  it('takes other algorithms, base64, a KeyObject, a payload in parts, and one of several signatures', () => {
    expect(verifyHmacSignature({ secret: SECRET, payload: BODY, signature: hex(BODY, SECRET, 'sha1'), algorithm: 'sha1' })).toEqual({ ok: true });
    expect(verifyHmacSignature({ secret: SECRET, payload: BODY, signature: hex(BODY, SECRET, 'sha1') })).toMatchObject({ ok: false });
    const signed = `${NOW}.${BODY}`;
    const key = createSecretKey(Buffer.from(SECRET));
    expect(verifyHmacSignature({ secret: key, payload: [`${NOW}.`, BODY], signature: base64(signed), encoding: 'base64' })).toEqual({ ok: true });
    const rotated = `v1,${base64(signed, 'old-secret')} v1,${base64(signed)}`;
    expect(verifyHmacSignature({ secret: SECRET, payload: signed, signature: rotated, encoding: 'base64', prefix: 'v1,', separator: ' ' })).toEqual({ ok: true });
    expect(verifyHmacSignature({ secret: SECRET, payload: signed, signature: rotated, encoding: 'base64', prefix: 'v1,' })).toMatchObject({ ok: false, reason: 'mismatch' });
  });

  it('checks the timestamp within the tolerance either way, before the digest', () => {
    const check = (value: string | undefined) =>
      verifyHmacSignature({ secret: SECRET, payload: BODY, signature: hex(BODY), timestamp: { value, toleranceSeconds: 300, nowSeconds: NOW } });
    expect(check(String(NOW - 299))).toEqual({ ok: true });
    expect(check(String(NOW + 299))).toEqual({ ok: true });
    expect(check(String(NOW - 301))).toEqual({ ok: false, reason: 'too_old', message: 'the timestamp is too old' });
    expect(check(String(NOW + 301))).toMatchObject({ ok: false, reason: 'too_new' });
    expect(check('yesterday')).toMatchObject({ ok: false, reason: 'malformed' });
    expect(check(undefined)).toMatchObject({ ok: false, reason: 'missing' });
  });

  it('refuses a missing or empty header, and never repeats the signature or the secret', () => {
    expect(verifyHmacSignature({ secret: SECRET, payload: BODY, signature: undefined })).toEqual({ ok: false, reason: 'missing', message: 'the signature (or its timestamp) is missing' });
    expect(verifyHmacSignature({ secret: SECRET, payload: BODY, signature: '  ' })).toMatchObject({ reason: 'missing' });
    const wrong = `sha256=${hex(BODY, 'other')}`;
    const verdict = verifyHmacSignature({ secret: SECRET, payload: BODY, signature: wrong, prefix: 'sha256=' });
    expect(JSON.stringify(verdict)).not.toContain(wrong.slice(7));
    expect(JSON.stringify(verdict)).not.toContain(SECRET);
  });
});
