/**
 * An agent's files reach the customer as real attachments of the e-mail
 * reply, end to end: the platform (the sandbox) sends a reply with a file and
 * an image, the gateway fetches them from it and attaches them — bytes
 * identical — and a file over the per-file limit is named under the text
 * instead, the reply going out all the same.
 */
import { randomBytes } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { startTestGateway } from '../../support/gateway.ts';
import { mailServers, sendMail, waitForMail } from '../../support/mail-servers.ts';
import { until } from '../../support/wait.ts';
import { emailConnector } from './settings.ts';

const MAIL_ARRIVES_MS = 10_000;

describe('an agent reply with files', () => {
  it('arrives with the file and the image attached, bytes identical; one over the limit is named, not attached', { timeout: 60_000 }, async () => {
    const servers = mailServers();
    const support = await servers.addUser('support', 'example.test');
    const customer = await servers.addUser('ann', 'customer.test');
    const tg = await startTestGateway({ connectors: [emailConnector(support, { reconnect_max_seconds: 2, attachments: { max_file_bytes: 100_000 } })] });
    await sendMail({ from: customer.address, to: support.address, subject: 'Need the form', text: 'Please send the form.\n' });
    const chatOf = async () => ((await tg.gateway.store.read.sql.get(`select chat_id as "chatId" from threads where connector = 'mail'`)) as { chatId: string | null } | undefined)?.chatId;
    await until(async () => (await chatOf()) != null, MAIL_ARRIVES_MS, 'the mail on the platform');

    const form = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(30_000), Buffer.from([0, 1, 2])]);
    const photo = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(5_000)]);
    const video = randomBytes(150_000);
    const posted = await tg.sandbox.call('POST', `/_sandbox/chats/${await chatOf()}/agent_messages`, {
      text: 'Here it is.',
      attachments: [
        { type: 'file', name: 'form.pdf', content_type: 'application/pdf', content_base64: form.toString('base64') },
        { type: 'image', content_type: 'image/png', content_base64: photo.toString('base64') },
        { type: 'file', name: 'walkthrough.mp4', content_type: 'video/mp4', content_base64: video.toString('base64') },
      ],
    });
    expect(posted.status).toBe(201);

    const [reply] = await waitForMail(customer, 1, MAIL_ARRIVES_MS);
    const mail = await simpleParser(reply!.raw);
    const attached = mail.attachments.map((a) => ({ name: a.filename, type: a.contentType, bytes: a.content }));
    expect(attached.map((a) => [a.name, a.type])).toEqual([
      ['form.pdf', 'application/pdf'],
      [expect.stringMatching(/\.png$/), 'image/png'],
    ]);
    expect(attached[0]!.bytes.equals(form)).toBe(true);
    expect(attached[1]!.bytes.equals(photo)).toBe(true);
    expect(mail.text).toContain('Here it is.');
    expect(mail.text).toContain('[attachment not sent: walkthrough.mp4 — over the 98 KB limit per file]');
  });
});
