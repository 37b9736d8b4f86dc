/**
 * parseMail, the body: HTML to readable text, signatures and quotes kept out
 * of the chat but in fullText, forwards shown, never blank, and attachments
 * listed with readable sizes. Guards against an unreadable or blank chat
 * message and files silently missing.
 */
import { describe, expect, it } from 'vitest';
import { formatSize } from '../../../connectors/email/attachments.ts';
import { parseMail } from '../../../connectors/email/parse-mail.ts';
import { basic, mail } from './parse-mail-support.ts';

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
