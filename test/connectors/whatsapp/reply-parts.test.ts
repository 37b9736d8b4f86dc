/**
 * An agent's text in WhatsApp's 4,096-character parts, and how files go:
 * cut at a paragraph, else a line, else a space in a part's second half, else
 * at the limit — never inside a surrogate pair, no part blank; an agent's
 * JPEG or PNG image within 5 MB as an image, anything else as a document.
 */
import { describe, expect, it } from 'vitest';
import { MAX_IMAGE_BYTES, mediaKind, replyMessages, splitText } from '../../../connectors/whatsapp/reply-parts.ts';

describe('splitText', () => {
  it('keeps a text within the limit whole, trimmed; a blank one is no part', () => {
    expect(splitText('  Hello Ann.\n')).toEqual(['Hello Ann.']);
    expect(splitText(' \n ')).toEqual([]);
  });

  it('cuts at the last paragraph, else the last line, else the last space of the second half', () => {
    expect(splitText('aaaa bbbb\n\ncccc dddd', 12)).toEqual(['aaaa bbbb', 'cccc dddd']);
    expect(splitText('aaaa bbbb\ncccc dddd', 12)).toEqual(['aaaa bbbb', 'cccc dddd']);
    expect(splitText('aaaa bbbb cccc dddd', 12)).toEqual(['aaaa bbbb', 'cccc dddd']);
    // A space in the first half only would make a short part: cut at the limit instead.
    expect(splitText('ab cdefghijklmnopqrstuvwxyz', 12)).toEqual(['ab cdefghijk', 'lmnopqrstuvw', 'xyz']);
  });

  it('never cuts an emoji (a surrogate pair) in two, and keeps every part within the limit', () => {
    const text = `${'x'.repeat(11)}😀${'y'.repeat(20)}`;
    const parts = splitText(text, 12);
    expect(parts[0]).toBe('x'.repeat(11));
    expect(parts.join('')).toBe(text);
    const long = 'word '.repeat(3_000);
    const cut = splitText(long);
    expect(cut.every((p) => p.length > 0 && p.length <= 4_096)).toBe(true);
    expect(cut.join(' ')).toBe(long.trim());
  });
});

describe('replyMessages and mediaKind', () => {
  it('sends the text parts first, then each file as an image or a document', () => {
    expect(replyMessages('Hi', [{ mediaId: '1', kind: 'image', filename: 'a.png' }, { mediaId: '2', kind: 'document', filename: 'b.pdf' }])).toEqual([
      { type: 'text', text: { body: 'Hi' } },
      { type: 'image', image: { id: '1' } },
      { type: 'document', document: { id: '2', filename: 'b.pdf' } },
    ]);
    expect(replyMessages('', [])).toEqual([]);
  });

  it('an agent’s JPEG or PNG image within 5 MB is an image; a file, a GIF or a larger picture a document', () => {
    expect(mediaKind('image/png', 1_000, 'image')).toBe('image');
    expect(mediaKind('image/jpeg', MAX_IMAGE_BYTES, 'image')).toBe('image');
    expect(mediaKind('image/jpeg', MAX_IMAGE_BYTES + 1, 'image')).toBe('document');
    expect(mediaKind('image/gif', 1_000, 'image')).toBe('document');
    expect(mediaKind('image/png', 1_000, 'file')).toBe('document');
  });
});
