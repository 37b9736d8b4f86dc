/**
 * Corpus expectations for the content of a mail: HTML-only and text-only
 * bodies, attachments and inline images, and the charsets and encodings mail
 * really uses (no mojibake).
 */
import type { Expected } from './corpus-support.ts';

export const CONTENT_AND_CHARSETS: Expected[] = [
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
    file: '28-bad-charset.eml',
    subject: 'Bestellung',
    from: 'user@oldclient.example',
    body: ['Grüße, wann kommt meine Bestellung 10210?'],
  },
  {
    file: '39-attachment-only.eml',
    subject: 'Scan',
    from: 'paul.meyer@t-online.example',
    body: ['(no text)'],
    attachments: ['[attachment: scan_2024-03-13.pdf, 2 KB]'],
  },
];
