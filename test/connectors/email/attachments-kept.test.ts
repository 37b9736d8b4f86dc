/**
 * Files of incoming mail, end to end against the run's Dovecot: a mail with
 * a PDF, an inline PNG (the HTML's cid: picture), an attached .html page and
 * a 30 MB file reaches the chat with a signed link per kept file — each
 * downloading the very bytes sent, the page as a download and never as a
 * page — and the 30 MB file listed as too large; a tampered link is refused.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatSize } from '../../../connectors/email/attachments.ts';
import { startTestGateway } from '../../support/gateway.ts';
import { appendRaw, mailServers } from '../../support/mail-servers.ts';
import { until } from '../../support/wait.ts';
import { ARRIVES_MS, inbound } from './hard-mail-support.ts';
import { emailConnector } from './settings.ts';

const base64Lines = (bytes: Buffer) => (bytes.toString('base64').match(/.{1,76}/g) ?? []).join('\r\n');

function part(headers: string[], body: Buffer): string {
  return [...headers, 'Content-Transfer-Encoding: base64', '', base64Lines(body)].join('\r\n');
}

describe('files of incoming mail', () => {
  it('are kept and linked: the bytes come back identical, an .html file only as a download, a 30 MB file listed as too large', { timeout: 120_000 }, async () => {
    const support = await mailServers().addUser('files');
    const tg = await startTestGateway({ connectors: [emailConnector(support, { reconnect_max_seconds: 1 })] });
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(20_000), Buffer.from([0, 0, 255])]);
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(3_000)]);
    const page = Buffer.from('<html><body><script>alert("owned")</script></body></html>');
    const huge = randomBytes(30 * 1024 * 1024);
    const raw = [
      'From: Ann <ann@customer.test>', `To: ${support.address}`, 'Subject: Broken part', 'Message-ID: <files-1@customer.test>',
      'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="mixed"', '',
      '--mixed', 'Content-Type: multipart/related; boundary="related"', '',
      '--related', 'Content-Type: text/html; charset=utf-8', '', '<p>The part is broken, see <img src="cid:photo@customer.test"></p>',
      '--related', part(['Content-Type: image/png; name="photo.png"', 'Content-ID: <photo@customer.test>', 'Content-Disposition: inline; filename="photo.png"'], png),
      '--related--',
      '--mixed', part(['Content-Type: application/pdf; name="invoice.pdf"', 'Content-Disposition: attachment; filename="invoice.pdf"'], pdf),
      '--mixed', part(['Content-Type: text/html; name="page.html"', 'Content-Disposition: attachment; filename="page.html"'], page),
      '--mixed', part(['Content-Type: application/octet-stream; name="disk.img"', 'Content-Disposition: attachment; filename="disk.img"'], huge),
      '--mixed--', '',
    ].join('\r\n');
    await appendRaw(support, raw);
    await until(async () => (await inbound(tg)).some((m) => m.status === 'posted'), ARRIVES_MS * 2, 'the mail posted');

    const [message] = await inbound(tg);
    const lines = message!.body.split('\n').filter((l) => l.startsWith('['));
    expect(lines.map((l) => l.replace(/ http\S+$/, ' <link>'))).toEqual([
      `[inline image: photo.png, ${formatSize(png.length)}] <link>`,
      `[attachment: invoice.pdf, ${formatSize(pdf.length)}] <link>`,
      `[attachment: page.html, ${formatSize(page.length)}] <link>`,
      '[attachment: disk.img, 30.0 MB — not kept: over the 10.0 MB limit per file]',
    ]);
    const link = (name: string) => lines.find((l) => l.includes(` ${name},`))!.split(' ').at(-1)!;
    expect(link('photo.png').startsWith(`${tg.gateway.url}/files/`)).toBe(true);

    const get = (url: string) => fetch(url);
    const photo = await get(link('photo.png'));
    expect(photo.status).toBe(200);
    expect(photo.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await photo.arrayBuffer()).equals(png)).toBe(true);

    const invoice = await get(link('invoice.pdf'));
    expect(invoice.status).toBe(200);
    expect(invoice.headers.get('content-type')).toBe('application/pdf');
    expect(invoice.headers.get('content-disposition')).toMatch(/^attachment; filename="invoice\.pdf"/);
    expect(invoice.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await invoice.arrayBuffer()).equals(pdf)).toBe(true);

    const html = await get(link('page.html'));
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toBe('application/octet-stream');
    expect(html.headers.get('content-disposition')).toMatch(/^attachment; filename="page\.html"/);
    expect(Buffer.from(await html.arrayBuffer()).equals(page)).toBe(true);

    const tampered = link('invoice.pdf').replace(/s=([\w-])/, (_, c: string) => `s=${c === 'A' ? 'B' : 'A'}`);
    expect((await get(tampered)).status).toBe(403);
  });
});
