/**
 * Corpus expectations for replies and forwards: Gmail, Outlook, Apple Mail
 * and Thunderbird replies whose quoted history and signatures must be
 * stripped, and forwards (inline or attached) that must arrive whole.
 */
import type { Expected } from './corpus-support.ts';

export const REPLIES_AND_FORWARDS: Expected[] = [
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
    file: '35-thunderbird-interleaved-flowed.eml',
    subject: 'Re: Your size',
    from: 'eva@lindqvist.example',
    body: ['Size M please, and if possible the long version of the sleeves.', 'Dark blue.'],
    stripped: ['Which size', 'which colour', 'wrote:', 'Lindqvist Design'],
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
