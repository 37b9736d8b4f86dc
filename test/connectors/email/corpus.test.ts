/**
 * The e-mail parser over a corpus of real-world-shaped raw messages
 * (test/fixtures/mail/*.eml, CRLF and LF): Gmail, Outlook, Apple Mail and
 * Thunderbird replies, forwards, attachments, the charsets and encodings
 * mail really uses, broken mail, and the robots that must never reach the
 * chat. Guards against: a customer's words missing from the chat, quoted
 * history or signatures flooding it, mojibake, a parser exception stopping
 * the mailbox, and an auto-reply or bounce being answered (a mail loop).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMail, type ParsedMail } from '../../../connectors/email/parse-mail.ts';
import type { SkipCode } from '../../../connectors/email/parsed-mail.ts';

const FIXTURES = join(import.meta.dirname, '../../fixtures/mail');
const OWN_HEADER = 'X-Threadgate-Connector';
const DERIVED_ID = /^<[0-9a-f]{64}@threadgate\.invalid>$/;

interface Expected {
  file: string;
  subject: string;
  /** The From address, or null for a mail without one. */
  from: string | null;
  /** Substrings the body must hold. */
  body?: string[];
  /** Quoted history and signatures: in the full text, not in the body. */
  stripped?: string[];
  /** Substrings the body must not hold (markup, mojibake, inline images). */
  notInBody?: string[];
  /** The `[attachment: …]` lines of the body, in order. */
  attachments?: string[];
  skip?: SkipCode;
  /** The mail has no Message-ID of its own. */
  derivedId?: boolean;
  /** In-Reply-To and References as threading must see them. */
  threading?: { inReplyTo: string[]; references: string[] };
}

const CORPUS: Expected[] = [
  {
    file: '01-gmail-reply-alternative.eml',
    subject: 'Re: Order #10023 arrived damaged',
    from: 'anna.schmidt@gmail.com',
    body: ['can you send a replacement instead of a refund?', 'Best,\nAnna'],
    stripped: ['Would you like a refund', 'wrote:', 'On Mon, Mar 4'],
    threading: {
      inReplyTo: ['<0102018e0a7b-5f2e-4c1a@email.shop.example>'],
      references: ['<CAF7n1=abc123@mail.gmail.com>', '<0102018e0a7b-5f2e-4c1a@email.shop.example>'],
    },
  },
  {
    file: '02-outlook-reply-windows-1252.eml',
    subject: 'RE: Invoice 2024-118 – wrong VAT',
    from: 'robert.miller@contoso.example',
    body: ['the “reduced rate” of 7 % applies', '€42.80', 'Thanks – Robert'],
    stripped: ['we have checked the invoice', '________', 'Sent: Friday'],
  },
  {
    file: '03-apple-mail-reply.eml',
    subject: 'Re: Delivery appointment',
    from: 'luc.martin@icloud.com',
    body: ['I’ll be home on Thursday after 2 pm.', 'Cheers\nLuc'],
    stripped: ['the courier can come', 'wrote:'],
  },
  {
    file: '04-html-only-table-links.eml',
    subject: 'Return request',
    from: 'greta@hansen-design.example',
    body: [
      'tracking page [https://carrier.example/track?id=JJD0001]',
      'https://shop.example/returns',
      'Blue mug',
      'Tea towel, linen   1',
    ],
    notInBody: ['logo', '<p>', 'td {', 'https://shop.example/returns [https://shop.example/returns]'],
  },
  {
    file: '05-text-only.eml',
    subject: 'Shipping to Slovakia?',
    from: 'peter@novak.example',
    body: ['do you ship to Slovakia, and how long does it take?\n\nThanks,\nPeter'],
  },
  {
    file: '06-forward-as-attachment.eml',
    subject: 'Fwd: Question about a bulk order',
    from: 'marta.kowalska@shop.example',
    body: [
      'please take care of it.',
      '---------- Forwarded message ----------',
      'Subject: Question about a bulk order',
      'we need 500 units of the stacking chair by April',
      '> Our earlier order was 200 units.',
    ],
    stripped: ['Marta Kowalska | Sales'],
    attachments: ['[attachment: Question about a bulk order.eml, 461 B]'],
  },
  {
    file: '07-forward-inline-gmail.eml',
    subject: 'Fwd: Lieferung KW 11',
    from: 'jonas.berg@gmail.com',
    body: [
      'FYI – the customer asked by phone as well.',
      '---------- Forwarded message ---------',
      'From: Karl Weber <karl@weber-bau.example>',
      'bitte liefern Sie die Bestellung erst in KW 11.',
      'Die Lieferung ist für KW 10 geplant.',
      'Mit freundlichen Grüßen',
    ],
  },
  {
    file: '08-forward-apple-html.eml',
    subject: 'Fwd: Parcel returned',
    from: 'sofia.rossi@me.example',
    body: ['Could you look into this?', 'Begin forwarded message:', 'the parcel was returned to us'],
  },
  {
    file: '09-reply-german-iso-8859-1.eml',
    subject: 'Re: Rücksendung Größe 42',
    from: 'j.weiss@web.example',
    body: ['vielen Dank für die schnelle Rückmeldung', 'Die Größe 42 passt leider nicht', 'Gruß\nJürgen'],
    stripped: ['schrieb', 'welche Größe'],
  },
  {
    file: '10-reply-french.eml',
    subject: 'Re: Remboursement',
    from: 'camille.durand@orange.example',
    body: ["je n'ai toujours pas reçu le remboursement", 'Cordialement,\nCamille'],
    stripped: ['écrit :', 'effectué hier'],
  },
  {
    file: '11-reply-spanish-base64.eml',
    subject: 'Re: Pedido 4471',
    from: 'maria.lopez@correo.example',
    body: ['¿cuándo llegará el pedido?', 'Gracias,\nMaría'],
    stripped: ['escribió', 'salió ayer'],
  },
  {
    file: '12-reply-outlook-original-message.eml',
    subject: 'RE: Order 10077',
    from: 'dave@harris.example',
    body: ['Please cancel the second item, I only need one.', 'Regards\nDave'],
    stripped: ['Original Message', 'two desk lamps', 'mailto:'],
  },
  {
    file: '13-reply-outlook-web-html.eml',
    subject: 'Re: Missing parts',
    from: 'ines@ortega.example',
    body: ['The two hinges for the left door are missing.'],
    stripped: ['which parts are missing', 'From:', '-----'],
  },
  {
    file: '14-signature-delimiter.eml',
    subject: 'Opening hours',
    from: 'john.smith@acme.example',
    body: ["I'd like to pick up order 10102."],
    stripped: ['Senior Buyer', '+1 555 0100', '-- '],
  },
  {
    file: '15-attachments-pdf-png.eml',
    subject: 'Damaged delivery - photos and invoice',
    from: 'lena.fischer@posteo.example',
    body: ['the photos and the invoice are attached.'],
    attachments: [
      '[attachment: invoice-10113.pdf, 24 KB]',
      '[attachment: box.png, 512 B]',
      '[attachment: Schäden am Karton.jpg, 2 KB]',
    ],
  },
  {
    file: '16-attachment-unnamed.eml',
    subject: 'Scanned order form',
    from: 'scanner@office.kappa.example',
    body: ['Order form attached'],
    attachments: ['[attachment: attachment-1.bin, 200 B]', '[attachment: attachment-2.pdf, 3 KB]'],
  },
  {
    file: '17-inline-cid-image.eml',
    subject: 'Screenshot of the checkout error',
    from: 'noah.williams@outlook.example',
    body: ['The checkout fails with the error below when I pay by card.', 'Terms attached as you asked.'],
    notInBody: ['image001', 'cid:', 'data:image'],
    attachments: ['[attachment: terms.pdf, 5 KB]'],
  },
  {
    file: '18-utf8-emoji.eml',
    subject: 'Danke 🙏 – alles angekommen 📦',
    from: 'zoe.mueller@mailbox.example',
    body: ['Super, vielen Dank! 🎉👍', 'alles heil. 👨‍👩‍👧', 'Zoë'],
  },
  {
    file: '19-iso-8859-1-qp.eml',
    subject: 'Problème de livraison',
    from: 'f.levesque@example.fr',
    body: ["le colis n'est pas arrivé à l'adresse indiquée. Où est-il ?", 'François'],
  },
  {
    file: '20-windows-1252-8bit.eml',
    subject: 'Refund of the delivery fee',
    from: 'siobhan.obrien@eircom.example',
    body: ['you said “free delivery over €50” but I was charged €4.95… Could you refund it? It’s order 10140.'],
  },
  {
    file: '21-latin1-label-cp1252-bytes.eml',
    subject: 'Gutschein',
    from: 'hp@gmx.example',
    body: ['Der „Frühlingsgutschein“ über 10 € wurde nicht abgezogen – bitte prüfen.'],
    notInBody: ['\u0080', '\u0093', '\u0084'],
  },
  {
    file: '22-iso-2022-jp.eml',
    subject: '注文の件について',
    from: 'yamada@example.jp',
    body: ['お世話になっております。', '注文番号12345の商品がまだ届いていません。', '山田'],
    notInBody: ['\u001b', '$B'],
  },
  {
    file: '23-encoded-words-split.eml',
    subject: 'Re: Prüfung der Rückzahlung (Ticket 881) Grüße',
    from: 'jose.garcia@example.es',
    body: ['any news about the refund for ticket 881?', 'José'],
  },
  {
    file: '24-missing-message-id.eml',
    subject: 'Order 10200 needs manual review',
    from: 'alerts@legacy-erp.example',
    body: ['could not be matched to a customer account'],
    derivedId: true,
  },
  {
    file: '25-missing-date.eml',
    subject: 'Invoice address',
    from: 'tomasz@wojcik.example',
    body: ['ul. Długa 5, Kraków.'],
  },
  {
    file: '26-missing-from.eml',
    subject: 'Contact form: delivery question',
    from: null,
    body: ['When will the green sofa be back in stock?'],
  },
  {
    file: '27-truncated-multipart.eml',
    subject: 'Contract draft',
    from: 'ravi.patel@example.in',
    body: ['please confirm receipt.'],
    attachments: ['[attachment: contract.pdf, 1 KB]'],
  },
  {
    file: '28-bad-charset.eml',
    subject: 'Bestellung',
    from: 'user@oldclient.example',
    body: ['Grüße, wann kommt meine Bestellung 10210?'],
  },
  {
    file: '29-auto-reply-out-of-office.eml',
    subject: 'Out of Office: Re: Order #10023 shipped',
    from: 'maria.jensen@nordlys.example',
    skip: 'TG_EMAIL_AUTO_REPLY',
  },
  {
    file: '30-bounce-dsn.eml',
    subject: 'Undelivered Mail Returned to Sender',
    from: 'mailer-daemon@mx.shop.example',
    skip: 'TG_EMAIL_BOUNCE',
    body: ['Recipient address rejected: User unknown'],
    attachments: ['[attachment: attachment-1.txt, 191 B]'], // the returned mail's headers (text/rfc822-headers)
  },
  {
    file: '31-mailing-list.eml',
    subject: '[suppliers] Price changes from April',
    from: 'bob@trader.example',
    skip: 'TG_EMAIL_BULK',
  },
  {
    file: '32-own-connector-mail.eml',
    subject: 'Re: Order #10023 arrived damaged',
    from: 'support@shop.example',
    skip: 'TG_EMAIL_OWN',
  },
  {
    file: '33-exchange-auto-response-suppress.eml',
    subject: 'Automatic reply: Your order 10150',
    from: 'h.olsen@fabrikam.example',
    skip: 'TG_EMAIL_AUTO_REPLY',
  },
  {
    file: '34-references-garbled.eml',
    subject: 'Re: Re: Warranty',
    from: 'alex.kim@example.kr',
    body: ['Is the warranty still valid?'],
    // Folded inside an id, one id without brackets, repeats, a comment after In-Reply-To.
    threading: {
      inReplyTo: ['<0102018e0f55-3c3c-4ee5@email.shop.example>'],
      references: [
        '<alexkim-warranty-1@example.kr>',
        '<0102018e0f55-1a1a-4ee5@email.shop.example>',
        '<alexkim-warranty-2@example.kr>',
        '<0102018e0f55-3c3c-4ee5@email.shop.example>',
      ],
    },
  },
  {
    file: '35-thunderbird-interleaved-flowed.eml',
    subject: 'Re: Your size',
    from: 'eva@lindqvist.example',
    body: ['Size M please, and if possible the long version of the sleeves.', 'Dark blue.'],
    stripped: ['Which size', 'which colour', 'wrote:', 'Lindqvist Design'],
  },
  {
    file: '36-newsletter-bulk.eml',
    subject: 'This week: 5 trends in sustainable packaging',
    from: 'news@packaging-news.example',
    skip: 'TG_EMAIL_BULK',
  },
  {
    file: '37-read-receipt.eml',
    subject: 'Letto: Re: Order 10160',
    from: 'carla.neri@example.it',
    skip: 'TG_EMAIL_RECEIPT',
    attachments: ['[attachment: attachment-1.txt, 205 B]'], // the message/disposition-notification part
  },
  {
    file: '38-empty-return-path.eml',
    subject: 'Ticket #5531 has been updated',
    from: 'tickets@helpdesk.partner.example',
    skip: 'TG_EMAIL_BOUNCE',
  },
  {
    file: '39-attachment-only.eml',
    subject: 'Scan',
    from: 'paul.meyer@t-online.example',
    body: ['(no text)'],
    attachments: ['[attachment: scan_2024-03-13.pdf, 2 KB]'],
  },
  {
    file: '40-outlook-mac-reply.eml',
    subject: 'Re: Return label',
    from: 'olivia@brown.example',
    body: ['will drop the parcel off tomorrow.', 'Olivia'],
    stripped: ['please find the return label', 'Date: Tuesday'],
  },
  {
    file: '41-outlook-forward.eml',
    subject: 'FW: Delivery note missing',
    from: 'mark.evans@contoso.example',
    body: ['can you help?', 'From: Warehouse Contoso', 'The pallet from the shop arrived without a delivery note.'],
  },
  {
    file: '42-iphone-top-post.eml',
    subject: 'Re: Gift wrapping',
    from: 'mia.wong@icloud.example',
    body: ['Yes please, gift wrapping for both items!'],
    stripped: ['Should we gift-wrap', 'wrote:'],
  },
];

const fixtureFiles = readdirSync(FIXTURES).filter((name) => name.endsWith('.eml')).sort();
const read = (file: string) => readFileSync(join(FIXTURES, file));
const parse = (file: string) => parseMail(read(file), { ownHeaderName: OWN_HEADER });
const attachmentLines = (mail: ParsedMail) => mail.body.split('\n').filter((line) => line.startsWith('[attachment: '));

describe('the mail corpus', () => {
  it('has an expectation for every fixture, and at least 30 of them in both line-end styles', () => {
    expect(CORPUS.map((entry) => entry.file).sort()).toEqual(fixtureFiles);
    expect(fixtureFiles.length).toBeGreaterThanOrEqual(30);
    const crlf = fixtureFiles.filter((file) => read(file).includes('\r\n'));
    expect(crlf.length).toBeGreaterThan(5);
    expect(fixtureFiles.length - crlf.length).toBeGreaterThan(5);
  });

  it.each(CORPUS)('$file', async (expected) => {
    const mail = await parse(expected.file);

    expect(mail.subject).toBe(expected.subject);
    expect(mail.from?.address ?? null).toBe(expected.from);
    expect(mail.skip?.code).toBe(expected.skip);
    for (const part of expected.body ?? []) expect(mail.body).toContain(part);
    for (const part of expected.notInBody ?? []) expect(mail.body).not.toContain(part);
    expect(attachmentLines(mail)).toEqual(expected.attachments ?? []);
    if (expected.derivedId) expect(mail.messageId).toMatch(DERIVED_ID);
    else expect(mail.messageId).toMatch(/^<[^<>\s]+@[^<>\s]+>$/);
    expect(mail.messageIdDerived).toBe(expected.derivedId === true);
    if (expected.threading) expect({ inReplyTo: mail.inReplyTo, references: mail.references }).toEqual(expected.threading);
    for (const part of expected.stripped ?? []) {
      expect(mail.body).not.toContain(part);
      expect(mail.fullText).toContain(part);
    }
  });

  it('never throws, and gives every mail a non-blank body or a skip with a reason', async () => {
    for (const file of fixtureFiles) {
      const mail = await parse(file);
      expect(mail.body.trim(), file).not.toBe('');
      if (mail.skip) expect(mail.skip.reason.trim(), file).not.toBe('');
    }
  });

  it('gives every mail the same Message-ID on every parse, derived ones included', async () => {
    for (const file of fixtureFiles) {
      const [first, second] = [await parse(file), await parse(file)];
      expect(second.messageId, file).toBe(first.messageId);
    }
  });
});
