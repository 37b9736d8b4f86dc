/**
 * parseMail, the headers: Message-IDs stable and normalised, threading
 * headers read tolerantly, addresses, subject and date decoded, and the skip
 * and raw headers the intake needs. Guards against a mail posted twice or
 * threaded wrongly, and one customer becoming two visitors.
 */
import { describe, expect, it } from 'vitest';
import { parseMail } from '../../../connectors/email/parse-mail.ts';
import { basic, DERIVED_ID, mail } from './parse-mail-support.ts';

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
