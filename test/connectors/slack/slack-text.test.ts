/**
 * Slack's text both ways: a customer's mrkdwn read as Slack shows it
 * (mentions by name, channel names, links with their address, escapes
 * undone), an agent's text escaped so it never becomes a mention or link,
 * headed with the agent's name; and a long reply cut into parts of at most
 * 4,000 characters at paragraph, line or word ends, never inside an escape
 * or a surrogate pair, losing nothing but the white space at a cut.
 */
import { describe, expect, it } from 'vitest';
import { escapeForSlack, mentionedUsers, readableText } from '../../../connectors/slack/mrkdwn.ts';
import { PART_CHARS, replyText, splitText } from '../../../connectors/slack/reply-text.ts';

describe('a customer’s text', () => {
  it('reads mentions, channels, specials, links and escapes as Slack shows them', () => {
    const text = 'Hi <@U0SAM0001>, see <#C0GEN0001|general> &amp; <https://x.test/a?b=1&amp;c=2|the docs> or <https://y.test> <!here> <mailto:ann@x.test|ann@x.test> 1 &lt; 2';
    expect(mentionedUsers(text)).toEqual(['U0SAM0001']);
    expect(readableText(text, new Map([['U0SAM0001', 'Sam']]))).toBe('Hi @Sam, see #general & the docs (https://x.test/a?b=1&c=2) or https://y.test @here ann@x.test 1 < 2');
    expect(readableText('<@U0UNKNOWN1> and <!subteam^S012|@oncall>')).toBe('@U0UNKNOWN1 and @oncall');
  });
});

describe('an agent’s reply', () => {
  it('is escaped and headed with the agent’s name; without a name or with agent_names off, the text alone', () => {
    expect(escapeForSlack('a < b & <@U1>')).toBe('a &lt; b &amp; &lt;@U1&gt;');
    expect(replyText('Sam *Support*', 'Use <b> & go', ['[attachment not sent: x.bin — too big]'], true)).toBe('*Sam Support*: Use &lt;b&gt; &amp; go\n\n[attachment not sent: x.bin — too big]');
    expect(replyText(null, 'Hi', [], true)).toBe('Hi');
    expect(replyText('Sam', 'Hi', [], false)).toBe('Hi');
  });

  it('up to 4,000 characters is one part; longer is cut at paragraph ends, and nothing but white space is lost', () => {
    expect(splitText('short')).toEqual(['short']);
    expect(splitText('x'.repeat(PART_CHARS))).toHaveLength(1);
    const paragraphs = Array.from({ length: 30 }, (_, i) => `${i} ${'word '.repeat(60).trim()}`);
    const parts = splitText(paragraphs.join('\n\n'));
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(PART_CHARS);
    expect(parts.join('\n\n')).toBe(paragraphs.join('\n\n'));
    expect(parts.every((p) => /^\d+ word/.test(p))).toBe(true);
  });

  it('text without breaks is cut at the limit, never inside an escape or a surrogate pair', () => {
    const escaped = `${'a'.repeat(38)}&amp;${'b'.repeat(40)}`;
    const parts = splitText(escaped, 40);
    expect(parts[0]).toBe('a'.repeat(38));
    expect(parts[1]!.startsWith('&amp;')).toBe(true);
    const emoji = `${'c'.repeat(39)}😀${'d'.repeat(30)}`;
    const cut = splitText(emoji, 40);
    expect(cut[0]).toBe('c'.repeat(39));
    expect(cut.join('')).toBe(emoji);
  });
});
