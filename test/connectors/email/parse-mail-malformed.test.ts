/**
 * parseMail on malformed mail: it never throws, falls back to what it can
 * read, and reports what it cannot as TG_EMAIL_UNPARSEABLE with a stable id.
 * Guards against one malformed mail stopping the whole mailbox.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseMail } from '../../../connectors/email/parse-mail.ts';
import { basic, DERIVED_ID, mail } from './parse-mail-support.ts';

describe('parseMail: malformed mail never throws', () => {
  afterEach(() => {
    vi.doUnmock('mailparser');
    vi.resetModules();
  });

  it('falls back to the text part and the headers when mailparser refuses the structure', async () => {
    // Guards against: one mail with more MIME parts than mailparser accepts stopping the mailbox.
    const parts = Array.from({ length: 1_005 }, (_, i) => ['--b', 'Content-Type: text/plain', '', `part ${i}`]).flat();
    const raw = mail(
      ['From: =?UTF-8?Q?Zo=C3=AB?= <zoe@example.com>', 'Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=', 'Message-ID: <many@example.com>', 'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="b"'],
      ['--b', 'Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: quoted-printable', '', 'Hello, the =C3=BC is fine.', ...parts, '--b--'],
    );
    const parsed = await parseMail(raw);
    expect(parsed).toMatchObject({ messageId: '<many@example.com>', subject: 'Grüße', from: { address: 'zoe@example.com', name: 'Zoë' }, body: 'Hello, the ü is fine.' });
    expect(parsed.skip).toBeUndefined();
  });

  it('falls back when one header is too big for mailparser, keeping the essential headers', async () => {
    // Guards against: a giant (spam-filter or tracking) header making a customer mail unreadable.
    const raw = mail(['From: anna@example.com', 'Subject: Still readable', `X-Huge: ${'a'.repeat(1_100_000)}`, 'Message-ID: <big@example.com>'], ['The text.']);
    expect(await parseMail(raw)).toMatchObject({ subject: 'Still readable', from: { address: 'anna@example.com' }, body: 'The text.' });
  });

  it('reports TG_EMAIL_UNPARSEABLE with a reason when even the headers cannot be parsed', async () => {
    // Guards against: an exception out of parseMail when mailparser fails on everything.
    vi.doMock('mailparser', async (importOriginal) => ({
      ...(await importOriginal<typeof import('mailparser')>()),
      simpleParser: async () => {
        throw new Error('simulated parser failure');
      },
    }));
    const { parseMail: parseWithBrokenParser } = await import('../../../connectors/email/parse-mail.ts');
    const parsed = await parseWithBrokenParser(mail(basic(), ['Hi']));
    expect(parsed.skip?.code).toBe('TG_EMAIL_UNPARSEABLE');
    expect(parsed.skip?.reason).toContain('simulated parser failure');
    expect(parsed).toMatchObject({ messageId: '<a1@example.com>', subject: 'Hello', from: { address: 'anna@example.com' }, body: '(no text)' });
  });

  it.each([
    ['an empty message', Buffer.alloc(0)],
    ['text without a header block', Buffer.from('just some words\nand more\n')],
    ['binary garbage', Buffer.from([0, 1, 2, 255, 254, 10, 10, 3, 4])],
  ])('reports %s as TG_EMAIL_UNPARSEABLE with a stable id', async (_, raw) => {
    // Guards against: garbage in the mailbox throwing, or being posted as an empty chat message.
    const parsed = await parseMail(raw);
    expect(parsed.skip?.code).toBe('TG_EMAIL_UNPARSEABLE');
    expect(parsed.skip?.reason).not.toBe('');
    expect(parsed.body).toBe('(no text)');
    expect(parsed.messageId).toMatch(DERIVED_ID);
    expect((await parseMail(raw)).messageId).toBe(parsed.messageId);
  });

  it.each([
    ['a broken base64 body', ['Content-Type: text/plain', 'Content-Transfer-Encoding: base64'], ['SGVsbG8gd29y!!!bGQ=', '====']],
    ['an unknown transfer encoding', ['Content-Type: text/plain', 'Content-Transfer-Encoding: x-uuencode'], ['Hello']],
    ['a multipart without a boundary', ['Content-Type: multipart/mixed'], ['Hello']],
    ['a header line without a colon', ['This is not a header', 'Content-Type: text/plain'], ['Hello']],
    ['an unknown charset on an encoded word', ['Subject: =?x-nonsense?Q?Gr=FC=DFe?='], ['Hello']],
  ])('parses %s without throwing', async (_, headerLines, body) => {
    // Guards against: the malformed shapes real mailboxes hold stopping the intake.
    const parsed = await parseMail(mail([...basic(), 'MIME-Version: 1.0', ...headerLines], body));
    expect(parsed.body.trim()).not.toBe('');
    expect(parsed.messageId).toBe('<a1@example.com>');
  });
});
