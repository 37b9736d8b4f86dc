/**
 * Signed file links (src/bridge/file-links.ts): a link verifies for its own id
 * and expiry only, a changed character anywhere refuses it, the expiry is
 * checked after the signature, and the key every replica signs with is the
 * same — derived from store.encryption_key, or the one kept in the store by
 * whichever replica came first.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createFileLinks, deriveLinkKey, GATEWAY_STATE_OWNER, LINK_KEY_STATE, loadLinkKey } from '../../src/bridge/file-links.ts';
import { cleanContentType, cleanFilename, fileLifetimeMs } from '../../src/bridge/files.ts';
import { openTestStore, STORE_BACKENDS } from '../support/store-backends.ts';

const ID = 'Q2hlY2tzIHRoZSBsaW5rcw';
const OTHER_ID = 'T3RoZXIgZmlsZSBpZCBoZXJl';
const NOW = Date.UTC(2030, 0, 1);
const HOUR = 60 * 60 * 1000;

/** The `e` and `s` of a link made by `linkFor`. */
function partsOf(link: string): { path: string; e: string; s: string } {
  const url = new URL(link, 'http://gw.example.test');
  return { path: url.pathname, e: url.searchParams.get('e')!, s: url.searchParams.get('s')! };
}

describe('file links', () => {
  const links = createFileLinks(randomBytes(32));

  it('signs <id>.<expires> and verifies only that pair, until the expiry', () => {
    const link = links.linkFor(ID, NOW + HOUR + 999);
    const { path, e, s } = partsOf(link);
    expect(path).toBe(`/files/${ID}`);
    expect(e).toBe(String((NOW + HOUR) / 1000)); // whole seconds, taken down
    expect(s).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(links.verify(ID, e, s, NOW)).toBe('ok');
    expect(links.verify(ID, e, s, NOW + HOUR - 1)).toBe('ok');
    expect(links.verify(ID, e, s, NOW + HOUR)).toBe('expired');
    // The same signature does not carry over to another file or a later expiry.
    expect(links.verify(OTHER_ID, e, s, NOW)).toBe('bad-signature');
    expect(links.verify(ID, String(Number(e) + 3600), s, NOW)).toBe('bad-signature');
    // An expired link with a wrong signature is refused as a forgery, not answered as expired.
    expect(links.verify(ID, e, s.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')), NOW + 2 * HOUR)).toBe('bad-signature');
  });

  // Guards against the compare throwing (timingSafeEqual on unequal lengths) or forgiving what base64url decoding
  // would skip: every variant is a clean refusal.
  it('refuses every altered, missing or malformed signature without throwing', () => {
    const { e, s } = partsOf(links.linkFor(ID, NOW + HOUR));
    const variants: unknown[] = [
      undefined, '', s.slice(0, -1), `${s}A`, `${s}=`, ` ${s}`, s.toLowerCase() === s ? s.toUpperCase() : s.toLowerCase(),
      `${s.slice(0, -1)}é`, // as many characters, one more byte
      [s, s], // ?s=…&s=…
      `${s.slice(0, 20)}!${s.slice(21)}`,
    ];
    for (const variant of variants) expect(links.verify(ID, e, variant, NOW)).toBe('bad-signature');
    for (const badE of [undefined, '', `${e}.0`, `-${e}`, `${e} `, [e]]) expect(links.verify(ID, badE, s, NOW)).toBe('bad-signature');
    // Ids the store never makes are refused before any lookup.
    expect(links.verify('short', e, s, NOW)).toBe('bad-signature');
    expect(links.verify('../../etc/passwd.....', e, s, NOW)).toBe('bad-signature');
  });

  it('derives the same key from the same store.encryption_key, and another from another', () => {
    const secret = 'x'.repeat(40);
    const link = createFileLinks(deriveLinkKey(secret)).linkFor(ID, NOW + HOUR);
    const { e, s } = partsOf(link);
    expect(createFileLinks(deriveLinkKey(secret)).verify(ID, e, s, NOW)).toBe('ok');
    expect(createFileLinks(deriveLinkKey('y'.repeat(40))).verify(ID, e, s, NOW)).toBe('bad-signature');
  });

  it('a file lives link_ttl_days, or retention_days when shorter; names and types are cleaned', () => {
    expect(fileLifetimeMs(30, 90)).toBe(30 * 24 * HOUR);
    expect(fileLifetimeMs(30, 7)).toBe(7 * 24 * HOUR);
    expect(cleanFilename('C:\\Users\\me\\invoice.pdf')).toBe('invoice.pdf');
    expect(cleanFilename('../../x\r\n.txt')).toBe('x.txt');
    expect(cleanFilename('  ')).toBe('file');
    expect(cleanFilename('a/..')).toBe('file');
    expect(cleanContentType(' Text/Plain; charset=UTF-8 ')).toBe('text/plain; charset=utf-8');
    expect(cleanContentType('pdf')).toBe('application/octet-stream');
    expect(cleanContentType('')).toBe('application/octet-stream');
  });
});

describe.each(STORE_BACKENDS)('the file link key in the %s store', (backend) => {
  // Guards against replicas starting together each keeping a key of their own: links made by one would be refused by
  // the others.
  it('is made once, by whichever gateway comes first, and read back by every other, also after a restart', async () => {
    const { store, reopen } = await openTestStore(backend);
    const other = await reopen();
    const [a, b] = await Promise.all([loadLinkKey(store, undefined), loadLinkKey(other, undefined)]);
    expect(a.length).toBe(32);
    expect(b.equals(a)).toBe(true);
    expect((await loadLinkKey(await reopen(), undefined)).equals(a)).toBe(true);
    expect(await store.read.state.get(GATEWAY_STATE_OWNER, LINK_KEY_STATE)).toBe(a.toString('base64url'));
  });

  it('is not kept in the store when store.encryption_key is set, and refuses a kept key that is not one', async () => {
    const { store } = await openTestStore(backend);
    expect((await loadLinkKey(store, 'k'.repeat(32))).equals(deriveLinkKey('k'.repeat(32)))).toBe(true);
    expect(await store.read.state.get(GATEWAY_STATE_OWNER, LINK_KEY_STATE)).toBeUndefined();
    await store.write((tx) => tx.state.set(GATEWAY_STATE_OWNER, LINK_KEY_STATE, 'too-short', 1));
    await expect(loadLinkKey(store, undefined)).rejects.toMatchObject({ code: 'TG_FILE_LINK_KEY_INVALID' });
  });
});
