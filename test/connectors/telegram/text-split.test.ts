/**
 * An agent's long reply cut into Telegram messages (connectors/telegram/text-split.ts):
 * no part over 4096 characters, cut at a paragraph, then a line, then a
 * word boundary when one leaves the part at least half full, never inside
 * an emoji's surrogate pair, nothing lost but the breaks cut at, no blank
 * part. The counterpart refuses 4097 characters, so the limit is the one
 * that matters.
 */
import { describe, expect, it } from 'vitest';
import { splitText, TELEGRAM_TEXT_LIMIT } from '../../../connectors/telegram/text-split.ts';

const words = (n: number, word = 'lorem') => Array.from({ length: n }, () => word).join(' ');

describe('splitText', () => {
  it('leaves a text of at most 4096 characters whole, and drops a blank one', () => {
    expect(splitText('Hello')).toEqual(['Hello']);
    expect(splitText('x'.repeat(TELEGRAM_TEXT_LIMIT))).toEqual(['x'.repeat(TELEGRAM_TEXT_LIMIT)]);
    expect(splitText('  \n ')).toEqual([]);
  });

  it('cuts at the last paragraph break that leaves the part at least half full', () => {
    const first = words(500); // 2999 characters
    const second = words(400);
    const parts = splitText(`${first}\n\n${second}`);
    expect(parts).toEqual([first, second]);
  });

  it('prefers a line break, then a space, to a paragraph break early in the part', () => {
    const early = `Intro\n\n${words(600)}\n${words(200)}`;
    const parts = splitText(early);
    expect(parts).toEqual([`Intro\n\n${words(600)}`, words(200)]);
    const oneLine = words(1_000); // 5999 characters, spaces only
    const cut = splitText(oneLine);
    expect(cut.map((p) => p.length)).toEqual([4091, 1907]);
    expect(cut.join(' ')).toBe(oneLine);
  });

  it('cuts a word longer than a message after 4096 characters, never inside a surrogate pair', () => {
    expect(splitText('y'.repeat(9_000)).map((p) => p.length)).toEqual([4096, 4096, 808]);
    const emoji = `${'z'.repeat(4095)}😀tail`;
    const parts = splitText(emoji);
    expect(parts).toEqual(['z'.repeat(4095), '😀tail']);
    expect(parts.join('')).toBe(emoji);
  });

  it('keeps every character but the breaks it cut at, in order, each part within the limit', () => {
    const paragraphs = Array.from({ length: 12 }, (_, i) => `${i}: ${words(120 + i * 13, 'ipsum')}\n${words(40, 'dolor')}`);
    const text = paragraphs.join('\n\n');
    const parts = splitText(text);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
    expect(parts.join('\n\n')).toBe(text);
  });

  it('takes a smaller limit for tests and refuses a meaningless one', () => {
    expect(splitText('aa bb cc', 5)).toEqual(['aa bb', 'cc']);
    expect(() => splitText('x', 1)).toThrow(RangeError);
  });
});
