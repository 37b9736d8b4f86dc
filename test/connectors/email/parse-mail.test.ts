/**
 * parseMail: from raw bytes to what the connector submits. Guards against
 * the failures that cost a support mailbox most: a mail posted twice or
 * threaded wrongly (unstable or mangled ids), an unreadable or blank chat
 * message, files silently missing, and one malformed mail throwing and
 * stopping the whole mailbox.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatSize } from '../../../connectors/email/attachments.ts';
import { parseMail } from '../../../connectors/email/parse-mail.ts';

const DERIVED_ID = /^<[0-9a-f]{64}@threadgate\.invalid>$/;

/** A raw mail from header lines and body lines, joined with `eol`. */
function mail(headerLines: string[], bodyLines: string[], eol = '\r\n'): Buffer {
  return Buffer.from([...headerLines, '', ...bodyLines].join(eol));
}

const basic = (...extra: string[]) => [
  'From: Anna <Anna@Example.com>',
  'To: support@shop.example',
  'Subject: Hello',
  'Date: Mon, 4 Mar 2024 10:00:00 +0100',
  'Message-ID: <a1@example.com>',
  ...extra,
];

describe('parseMail: Message-IDs', () => {
  it('keeps the Message-ID as in the header and normalises one without brackets', async () => {
    // Guards against: the dedup key changing between reads, or differing from the id replies reference.
    expect((await parseMail(mail(basic(), ['Hi']))).messageId).toBe('<a1@example.com>');
    const bare = mail(['From: a@example.com', 'Message-ID: a2@example.com'], ['Hi']);
    expect(await parseMail(bare)).toMatchObject({ messageId: '<a2@example.com>', messageIdDerived: false });
  });

  it('derives a stable id from the raw bytes when there is none, whatever the line ends', async () => {
    // Guards against: a mail without Message-ID being posted again on every mailbox rescan.
    const lines = ['From: ERP <erp@example.com>', 'Subject: Alert', 'Date: Mon, 4 Mar 2024 10:00:00 +0100'];
    const first = await parseMail(mail(lines, ['Disk full'], '\r\n'));
    const again = await parseMail(mail(lines, ['Disk full'], '\r\n'));
    const lf = await parseMail(mail(lines, ['Disk full'], '\n'));
    expect(first.messageId).toMatch(DERIVED_ID);
    expect(first.messageIdDerived).toBe(true);
    expect(again.messageId).toBe(first.messageId);
    expect(lf.messageId).toBe(first.messageId);
  });

  it('derives different ids for different mails with the same text', async () => {
    // Guards against: the second identical alert from a script (no Message-ID, no Date) being dropped as a duplicate.
    const at = (time: string) => mail([`Received: from erp by mx; Mon, 4 Mar 2024 ${time} +0100`, 'From: erp@example.com', 'Subject: Alert'], ['Disk full']);
    expect((await parseMail(at('10:00:00'))).messageId).not.toBe((await parseMail(at('10:05:00'))).messageId);
  });

  it('reads In-Reply-To and References tolerantly, in order, without repeats', async () => {
    // Guards against: a reply opening a new chat because its threading headers were folded or garbled.
    const raw = mail(
      basic(
        'In-Reply-To: Your message of "Mon, 4 Mar 2024" <x1@shop.example>',
        'References: <r1@example.com>\r\n <x1@shop.\r\n example> r2@example.com <r1@example.com>',
      ),
      ['Hi'],
    );
    const parsed = await parseMail(raw);
    expect(parsed.inReplyTo).toEqual(['<x1@shop.example>']);
    expect(parsed.references).toEqual(['<r1@example.com>', '<x1@shop.example>', '<r2@example.com>']);
  });
});

describe('parseMail: addresses, subject and date', () => {
  it('lower-cases addresses, decodes names, flattens groups and drops Outlook\'s quotes around names', async () => {
    // Guards against: one customer becoming two visitors because of the case of their address.
    const raw = mail(
      [
        'From: =?UTF-8?Q?Zo=C3=AB?= <Zoe@Example.COM>',
        "To: 'Shop Support' <Support@Shop.Example>, Team: Bob <BOB@x.example>, carl@x.example;",
        'Cc: undisclosed-recipients:;',
        'Reply-To: Orders <Orders@Example.com>',
        'Delivered-To: support+t123@shop.example',
        'Delivered-To: forward@old.example',
        'Return-Path: <Bounce+Zoe@Example.com>',
        'Message-ID: <a@example.com>',
      ],
      ['Hi'],
    );
    const parsed = await parseMail(raw);
    expect(parsed.from).toEqual({ address: 'zoe@example.com', name: 'Zoë' });
    expect(parsed.to).toEqual([
      { address: 'support@shop.example', name: 'Shop Support' },
      { address: 'bob@x.example', name: 'Bob' },
      { address: 'carl@x.example' },
    ]);
    expect(parsed.cc).toEqual([]);
    expect(parsed.replyTo).toEqual([{ address: 'orders@example.com', name: 'Orders' }]);
    expect(parsed.deliveredTo).toEqual({ address: 'support+t123@shop.example' });
    expect(parsed.returnPath).toEqual({ address: 'bounce+zoe@example.com' });
  });

  it('reads unencoded 8-bit Latin-1 headers as Windows-1252 instead of replacement characters', async () => {
    // Guards against: "Gr��e" from old clients and web forms that put raw Latin-1 into Subject and From.
    const raw = Buffer.from('From: J\xfcrgen <j@example.de>\r\nSubject: Gr\xfc\xdfe aus K\xf6ln \x80\r\nMessage-ID: <l1@example.de>\r\n\r\nHallo\r\n', 'latin1');
    const parsed = await parseMail(raw);
    expect(parsed.subject).toBe('Grüße aus Köln €');
    expect(parsed.from).toEqual({ address: 'j@example.de', name: 'Jürgen' });
    expect(parsed.body).toBe('Hallo');
  });

  it("gives '' for a missing subject and no date for a missing or unreadable one — never the current time", async () => {
    // Guards against: the same mail parsing differently on every read (mailparser turns a bad Date into "now").
    const parsed = await parseMail(mail(['From: a@example.com', 'Message-ID: <d@example.com>'], ['Hi']));
    expect(parsed.subject).toBe('');
    expect(parsed.date).toBeUndefined();
    const garbage = await parseMail(mail(['From: a@example.com', 'Date: sometime last week', 'Message-ID: <d@example.com>'], ['Hi']));
    expect(garbage.date).toBeUndefined();
  });

  it('reads dates with named European zones and comments', async () => {
    // Guards against: mail from older European clients ("… CET") arriving without a date.
    const cet = await parseMail(mail(basic().map((line) => (line.startsWith('Date:') ? 'Date: Mon, 04 Mar 2024 10:00:00 CET' : line)), ['Hi']));
    expect(cet.date?.toISOString()).toBe('2024-03-04T09:00:00.000Z');
    const comment = await parseMail(mail(basic().map((line) => (line.startsWith('Date:') ? 'Date: Mon,  4 Mar 2024 10:00:00 +0100 (CET)' : line)), ['Hi']));
    expect(comment.date?.toISOString()).toBe('2024-03-04T09:00:00.000Z');
  });
});

describe('parseMail: the body', () => {
  it('converts HTML-only mail to readable text: links as "text [url]", no images, readable tables', async () => {
    // Guards against: raw markup, image URLs or a flattened table ("ItemQtyMug2") in the chat.
    const html = [
      '<p>See the <a href="https://x.example/t?id=1">tracking page</a> <img src="https://x.example/logo.png" alt="Logo"></p>',
      '<table><tr><th>Item</th><th>Qty</th></tr><tr><td>Mug</td><td>2</td></tr></table>',
    ];
    const parsed = await parseMail(mail([...basic(), 'MIME-Version: 1.0', 'Content-Type: text/html; charset=utf-8'], html));
    expect(parsed.body).toContain('tracking page [https://x.example/t?id=1]');
    expect(parsed.body).not.toMatch(/logo|<p>|<td>/i);
    expect(parsed.body).toMatch(/Item +Qty\nMug +2/);
  });

  it('honours the signature delimiter in HTML mail, where Gmail wraps it in a span', async () => {
    // Guards against: HTML signatures surviving because html-to-text turns "-- " into "--".
    const html = '<div dir="ltr">Open on Saturday?<div><br></div><span class="gmail_signature_prefix">-- </span><br><div class="gmail_signature">John Smith<br>Buyer</div></div>';
    const parsed = await parseMail(mail([...basic(), 'MIME-Version: 1.0', 'Content-Type: text/html; charset=utf-8'], [html]));
    expect(parsed.body).toBe('Open on Saturday?');
  });

  it('uses the HTML part when the text part is empty', async () => {
    // Guards against: "(no text)" for mobile clients that send an empty text/plain next to the real HTML.
    const raw = mail(
      [...basic(), 'MIME-Version: 1.0', 'Content-Type: multipart/alternative; boundary="b"'],
      ['--b', 'Content-Type: text/plain; charset=utf-8', '', ' ', '--b', 'Content-Type: text/html; charset=utf-8', '', '<div>The real text</div>', '--b--'],
    );
    expect((await parseMail(raw)).body).toBe('The real text');
  });

  it('shows a forwarded message, whether attached as a file or inline', async () => {
    // Guards against: "see below" arriving in the chat without the mail it is about.
    const forward = (disposition: string) =>
      mail(
        [...basic(), 'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="b"'],
        [
          '--b',
          'Content-Type: text/plain',
          '',
          'See below.',
          '--b',
          'Content-Type: message/rfc822',
          `Content-Disposition: ${disposition}`,
          '',
          'From: Karl <karl@example.de>',
          'To: shop@example.com',
          'Subject: Lieferung',
          'Date: Tue, 5 Mar 2024 08:14:00 +0100',
          '',
          'Bitte erst in KW 11 liefern.',
          '--b--',
        ],
      );
    const attached = await parseMail(forward('attachment; filename="Lieferung.eml"'));
    expect(attached.body).toMatch(/^See below\.\n\n---------- Forwarded message ----------\nFrom: "?Karl"? <karl@example\.de>\n/);
    expect(attached.body).toContain('Subject: Lieferung\nTo: shop@example.com\n\nBitte erst in KW 11 liefern.\n\n[attachment: Lieferung.eml, ');
    const inline = await parseMail(forward('inline'));
    expect(inline.body).toContain('Subject: Lieferung');
    expect(inline.body).toContain('Bitte erst in KW 11 liefern.');
  });

  it('keeps the whole text in fullText and only the new part in body', async () => {
    // Guards against: losing the quoted history from the store while keeping it out of the chat.
    const parsed = await parseMail(mail(basic(), ['Yes, 43.', '', 'On Mon, 4 Mar 2024 at 09:12, Tom wrote:', '> Which size?', '', '-- ', 'Anna']));
    expect(parsed.body).toBe('Yes, 43.');
    expect(parsed.fullText).toBe('Yes, 43.\n\nOn Mon, 4 Mar 2024 at 09:12, Tom wrote:\n> Which size?\n\n-- \nAnna');
  });

  it('is never blank: "(no text)" for an empty mail, followed by the attachment lines when there are files', async () => {
    // Guards against: the platform refusing a blank message, or a file-only mail arriving as nothing.
    expect((await parseMail(mail(basic(), ['']))).body).toBe('(no text)');
    const withFile = mail(
      [...basic(), 'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="b"'],
      ['--b', 'Content-Type: application/pdf', 'Content-Transfer-Encoding: base64', '', Buffer.alloc(1500, 1).toString('base64'), '--b--'],
    );
    const parsed = await parseMail(withFile);
    expect(parsed.body).toBe('(no text)\n\n[attachment: attachment-1.pdf, 1 KB]');
    expect(parsed.attachments).toEqual([{ filename: 'attachment-1.pdf', contentType: 'application/pdf', size: 1500 }]);
  });

  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1 KB'],
    [24_780, '24 KB'],
    [1_048_063, '1023 KB'],
    [1_048_500, '1.0 MB'],
    [1_572_864, '1.5 MB'],
    [5 * 1024 ** 3, '5.0 GB'],
  ])('shows %i bytes as %s', (bytes, shown) => {
    // Guards against: sizes like "0 KB" or "1024 KB" in the attachment lines.
    expect(formatSize(bytes)).toBe(shown);
  });

  it('does not list images the HTML shows inline by cid, but lists an inline image nobody references and a cid-linked PDF', async () => {
    // Guards against: every Outlook signature logo showing up as an "attachment", or a pasted photo or an Apple Mail PDF preview vanishing.
    const png = Buffer.alloc(300, 7).toString('base64');
    const raw = mail(
      [...basic(), 'MIME-Version: 1.0', 'Content-Type: multipart/related; boundary="r"'],
      [
        '--r',
        'Content-Type: text/html; charset=utf-8',
        '',
        '<p>Error:</p><img src="cid:shot@local"><img src="cid:doc@local">',
        '--r',
        'Content-Type: image/png; name="shot.png"',
        'Content-ID: <shot@local>',
        'Content-Transfer-Encoding: base64',
        '',
        png,
        '--r',
        'Content-Type: image/png; name="photo.png"',
        'Content-Disposition: inline; filename="photo.png"',
        'Content-ID: <photo@local>',
        'Content-Transfer-Encoding: base64',
        '',
        png,
        '--r',
        'Content-Type: application/pdf; name="order.pdf"',
        'Content-Disposition: inline; filename="order.pdf"',
        'Content-ID: <doc@local>',
        'Content-Transfer-Encoding: base64',
        '',
        Buffer.alloc(2048, 1).toString('base64'),
        '--r--',
      ],
    );
    const parsed = await parseMail(raw);
    expect(parsed.attachments.map((file) => file.filename)).toEqual(['photo.png', 'order.pdf']);
    expect(parsed.body).toBe('Error:\n\n[attachment: photo.png, 300 B]\n[attachment: order.pdf, 2 KB]');
  });
});

describe('parseMail: skip and headers', () => {
  it('sets skip from the noise rules, with the own header named by the option', async () => {
    // Guards against: the gateway posting its own replies back into the chat.
    const own = mail(basic('X-Threadgate-Connector: support-mail'), ['Hi']);
    expect((await parseMail(own, { ownHeaderName: 'X-Threadgate-Connector' })).skip).toMatchObject({ code: 'TG_EMAIL_OWN' });
    expect((await parseMail(own)).skip).toBeUndefined();
    const ooo = await parseMail(mail(basic('Auto-Submitted: auto-replied'), ['Out of office']));
    expect(ooo.skip).toEqual({ code: 'TG_EMAIL_AUTO_REPLY', reason: 'automatic reply: Auto-Submitted: auto-replied' });
  });

  it('keeps the interesting raw headers, unfolded and undecoded, and the own header', async () => {
    // Guards against: the intake needing a second parse to see List-Id or Auto-Submitted.
    const raw = mail(
      ['Received: from a by b', ...basic('Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=', 'List-Id: <l.example>', 'X-Threadgate-Connector: x', 'References: <r1@x>\r\n <r2@x>')],
      ['Hi'],
    );
    const { headers } = await parseMail(raw, { ownHeaderName: 'X-Threadgate-Connector' });
    expect(headers['received']).toBeUndefined();
    expect(headers['list-id']).toEqual(['<l.example>']);
    expect(headers['x-threadgate-connector']).toEqual(['x']);
    expect(headers['subject']).toEqual(['Hello', '=?UTF-8?Q?Gr=C3=BC=C3=9Fe?=']);
    expect(headers['references']).toEqual(['<r1@x> <r2@x>']);
  });
});

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
