/**
 * hmacSha256 gives createHmac's bytes: string and byte keys, keys longer than
 * a block (hashed first, as RFC 2104 says), the parts of a message in order,
 * UTF-8 text, an empty message, and more keys than it keeps worked out.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256 } from '../../src/hmac.ts';

const reference = (key: string | Uint8Array, ...parts: (string | Uint8Array)[]) => {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest('hex');
};

describe('hmacSha256', () => {
  it.each([
    ['a string key', 'whsec-like secret'],
    ['a byte key', randomBytes(24)],
    ['a key of exactly one block', randomBytes(64)],
    ['a key longer than a block', 'k'.repeat(200)],
    ['an empty key', ''],
  ] as const)('matches createHmac with %s', (_name, key) => {
    const body = Buffer.from(JSON.stringify({ thread_id: 't', body: 'Grüße — 注文 ✓' }));
    expect(hmacSha256(key, '1700000000.', body).toString('hex')).toBe(reference(key, '1700000000.', body));
    expect(hmacSha256(key, body).toString('hex')).toBe(reference(key, body));
    expect(hmacSha256(key, 'Grüße').toString('hex')).toBe(reference(key, 'Grüße'));
    expect(hmacSha256(key).toString('hex')).toBe(reference(key));
  });

  it('keeps giving the right bytes for more keys than it keeps, and tells a string key from the same bytes', () => {
    for (let i = 0; i < 150; i++) {
      const key = `secret-${i}`;
      expect(hmacSha256(key, `message ${i}`).toString('hex')).toBe(reference(key, `message ${i}`));
    }
    const bytes = Buffer.from('secret-1');
    expect(hmacSha256(bytes, 'x').toString('hex')).toBe(reference(bytes, 'x'));
    expect(hmacSha256('secret-1', 'x').toString('hex')).toBe(reference('secret-1', 'x'));
  });
});
