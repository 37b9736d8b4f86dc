/**
 * Corpus expectations for broken mail (missing Message-ID, Date or From,
 * truncated parts, garbled references) and for the robots that must never
 * reach the chat: auto-replies, bounces, lists, newsletters, receipts and
 * the connector's own mail.
 */
import type { Expected } from './corpus-support.ts';

export const BROKEN_AND_ROBOTS: Expected[] = [
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
];
