/**
 * Noise detection: auto-replies, bounces, read receipts, list and bulk
 * mail, and the gateway's own mail are never posted. Guards against mail
 * loops (an out-of-office answering the agent's reply answering the
 * out-of-office…), bounces opening chats, and — the other way round — a
 * customer's mail being dropped because it merely looks automatic.
 */
import { describe, expect, it } from 'vitest';
import { classifyNoise } from '../../../connectors/email/noise.ts';
import { readHeaderBlock } from '../../../connectors/email/raw-headers.ts';

const OWN = 'X-Threadgate-Connector';

/** Headers as they come off the wire: a customer mail plus the given lines. */
function headers(...extra: string[]) {
  const raw = [
    'Return-Path: <anna@example.com>',
    'From: Anna <anna@example.com>',
    'To: support@shop.example',
    'Subject: Where is my order?',
    'Message-ID: <a1@example.com>',
    ...extra,
    '',
    'Hello',
  ].join('\r\n');
  return readHeaderBlock(Buffer.from(raw)).headers;
}

/** Like `headers`, with the named defaults replaced. */
function replacing(defaults: Record<string, string>, ...extra: string[]) {
  const base = headers(...extra);
  for (const [name, value] of Object.entries(defaults)) base[name.toLowerCase()] = [value];
  return base;
}

describe('classifyNoise', () => {
  it('lets an ordinary customer mail through', () => {
    // Guards against: false positives silently dropping real customer mail.
    expect(classifyNoise(headers(), { ownHeaderName: OWN })).toBeUndefined();
    expect(classifyNoise(headers('Auto-Submitted: no'), { ownHeaderName: OWN })).toBeUndefined();
    expect(classifyNoise(headers('Auto-Submitted: No (sent by a person)'), { ownHeaderName: OWN })).toBeUndefined();
  });

  it("recognises the gateway's own mail by the configured header, whatever its case", () => {
    // Guards against: a Bcc or list copy of an agent's reply being posted back as a customer message.
    expect(classifyNoise(headers('x-threadgate-connector: support-mail'), { ownHeaderName: OWN })).toMatchObject({ code: 'TG_EMAIL_OWN' });
    expect(classifyNoise(headers('X-Threadgate-Connector: support-mail'))).toBeUndefined();
  });

  it.each(['auto-replied', 'auto-generated', 'auto-notified', 'Auto-Replied; owner-email="x@example.com"'])(
    'treats Auto-Submitted: %s as an automatic reply',
    (value) => {
      // Guards against: an RFC 3834 auto-responder starting a mail loop with the agent.
      expect(classifyNoise(headers(`Auto-Submitted: ${value}`))).toMatchObject({ code: 'TG_EMAIL_AUTO_REPLY' });
    },
  );

  it.each(['X-Autoreply: yes', 'X-Autorespond: Vacation', 'X-Auto-Response-Suppress: All', 'X-Auto-Response-Suppress: DR, OOF, AutoReply', 'Precedence: auto_reply'])(
    'treats "%s" as an automatic reply',
    (line) => {
      // Guards against: responders that do not speak RFC 3834 (Exchange, cPanel, old vacation scripts).
      const noise = classifyNoise(headers(line));
      expect(noise?.code).toBe('TG_EMAIL_AUTO_REPLY');
      expect(noise?.reason).toContain(line.split(':')[0]);
    },
  );

  it.each(['bulk', 'junk', 'list', 'BULK'])('treats Precedence: %s as bulk', (value) => {
    // Guards against: newsletters and list traffic opening chats.
    expect(classifyNoise(headers(`Precedence: ${value}`))).toMatchObject({ code: 'TG_EMAIL_BULK' });
  });

  it('treats List-Id as list mail, unless it names a list that feeds the support mailbox', () => {
    // Guards against: both list traffic in the chat, and a Google Group in front of support@ dropping every customer mail.
    const listed = headers('List-Id: Suppliers <suppliers.lists.example.org>', 'Precedence: list');
    expect(classifyNoise(listed)).toMatchObject({ code: 'TG_EMAIL_BULK' });
    expect(classifyNoise(headers('List-Id: <suppliers.lists.example.org>'))).toMatchObject({ code: 'TG_EMAIL_BULK' });
    expect(classifyNoise(listed, { acceptListIds: ['suppliers.lists.example.org'] })).toBeUndefined();
    expect(classifyNoise(listed, { acceptListIds: ['<SUPPLIERS.lists.example.org>'] })).toBeUndefined();
    // Junk stays junk even from an accepted list.
    const junk = headers('List-Id: <suppliers.lists.example.org>', 'Precedence: junk');
    expect(classifyNoise(junk, { acceptListIds: ['suppliers.lists.example.org'] })).toMatchObject({ code: 'TG_EMAIL_BULK' });
  });

  it('recognises a DSN by its multipart/report content type, even when it also says Auto-Submitted', () => {
    // Guards against: bounces of the agent's replies posted as customer messages (and filed as auto-replies).
    const dsn = headers('Auto-Submitted: auto-replied', 'Content-Type: multipart/report; report-type=delivery-status;\r\n\tboundary="b"');
    expect(classifyNoise(dsn)).toMatchObject({ code: 'TG_EMAIL_BOUNCE' });
    const quoted = headers('Content-Type: multipart/report; report-type="delivery-status"; boundary="b"');
    expect(classifyNoise(quoted)).toMatchObject({ code: 'TG_EMAIL_BOUNCE' });
  });

  it('recognises bounces by MAILER-DAEMON, postmaster with a bounce subject, X-Failed-Recipients and Return-Path: <>', () => {
    // Guards against: the plain-text bounces of qmail, Exchange and Exim, which have no multipart/report.
    expect(classifyNoise(replacing({ From: 'MAILER-DAEMON@mx.example.net (Mail Delivery System)' }))).toMatchObject({ code: 'TG_EMAIL_BOUNCE' });
    expect(classifyNoise(replacing({ From: 'Mail Delivery Subsystem <mailer-daemon@googlemail.com>' }))).toMatchObject({ code: 'TG_EMAIL_BOUNCE' });
    expect(classifyNoise(replacing({ From: 'postmaster@example.net', Subject: 'Undeliverable: Re: Your order' }))).toMatchObject({ code: 'TG_EMAIL_BOUNCE' });
    expect(classifyNoise(headers('X-Failed-Recipients: gone@example.net'))).toMatchObject({ code: 'TG_EMAIL_BOUNCE' });
    expect(classifyNoise(replacing({ 'Return-Path': '<>' }))).toMatchObject({ code: 'TG_EMAIL_BOUNCE' });
  });

  it('lets a person writing from postmaster@ through when nothing says bounce', () => {
    // Guards against: a hosting customer's admin, writing as postmaster@, never reaching support.
    expect(classifyNoise(replacing({ From: 'Postmaster <postmaster@customer.example>', Subject: 'Question about your SPF record' }))).toBeUndefined();
  });

  it('files a read receipt as a receipt, and an auto-reply with a null sender as an auto-reply', () => {
    // Guards against: read receipts opening chats, and out-of-office replies (sent from <> as RFC 3834 asks) counted as bounces.
    expect(classifyNoise(headers('Content-Type: multipart/report; report-type=disposition-notification; boundary="m"'))).toMatchObject({ code: 'TG_EMAIL_RECEIPT' });
    expect(classifyNoise(replacing({ 'Return-Path': '<>' }, 'Auto-Submitted: auto-replied'))).toMatchObject({ code: 'TG_EMAIL_AUTO_REPLY' });
  });

  it('prefers own over everything else, so the gateway never answers itself', () => {
    // Guards against: a returned copy of the gateway's own mail being counted as something else and logged misleadingly.
    const own = headers(`${OWN}: support-mail`, 'Auto-Submitted: auto-replied', 'Precedence: bulk');
    expect(classifyNoise(own, { ownHeaderName: OWN })).toMatchObject({ code: 'TG_EMAIL_OWN' });
  });
});
