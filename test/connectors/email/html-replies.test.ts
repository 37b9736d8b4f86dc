/**
 * Agent replies as multipart/alternative, end to end: a real gateway with the
 * e-mail connector against the run's Dovecot and OpenSMTPD, the sandbox as
 * the platform. The customer's mailbox gets the text as written and, after
 * it, an HTML part that is escaped, in paragraphs, with clickable links —
 * threaded exactly as the plain-text replies were.
 */
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { startTestGateway } from '../../support/gateway.ts';
import { mailServers, sendMail, waitForMail } from '../../support/mail-servers.ts';
import { until } from '../../support/wait.ts';
import { emailConnector } from './settings.ts';

/** Local delivery plus one IDLE notice takes well under a second; CI machines are slow and shared. */
const MAIL_ARRIVES_MS = 10_000;

const ANSWER = [
  'Hello Ann,',
  '',
  'we serve Fish & Chips on Fridays.',
  'Your order: <script>alert("x")</script>',
  '',
  'Menu: https://example.com/a?b=1&c=2.',
].join('\n');

describe('e-mail connector, HTML replies', () => {
  it('an agent reply arrives as multipart/alternative: the text as written first, then escaped HTML with links, threaded as before', async () => {
    // Guards against: replies that mail clients show as one run of text, and an HTML part that lets the reply's text become markup.
    const servers = mailServers();
    const support = await servers.addUser('support', 'example.test');
    const customer = await servers.addUser('ann', 'customer.test');
    const tg = await startTestGateway({ connectors: [emailConnector(support, { from_name: 'Support', reconnect_max_seconds: 2 })] });

    const sent = await sendMail({ from: customer.address, to: support.address, subject: 'Friday menu', text: 'What do you serve?\n' });
    const chatOf = async () =>
      ((await tg.gateway.store.read.sql.get(`select chat_id as "chatId" from threads where connector = 'mail'`)) as { chatId: string | null } | undefined)?.chatId;
    await until(async () => (await chatOf()) != null, MAIL_ARRIVES_MS, 'the mail to reach the platform');
    await tg.sandbox.call('POST', `/_sandbox/chats/${await chatOf()}/agent_messages`, { text: ANSWER });

    const mails = await waitForMail(customer, 1, MAIL_ARRIVES_MS);
    expect(mails).toHaveLength(1);
    const raw = mails[0]!.raw.toString('utf8');
    const mail = await simpleParser(mails[0]!.raw);

    // Threading as for plain-text replies (end-to-end.test.ts).
    expect(mail.subject).toBe('Re: Friday menu');
    expect(mail.inReplyTo).toBe(sent.messageId);
    expect([mail.references ?? []].flat()).toContain(sent.messageId);

    // One multipart/alternative of exactly two parts, text/plain before text/html.
    expect((mail.headers.get('content-type') as { value: string }).value).toBe('multipart/alternative');
    const partTypes = [...raw.matchAll(/^Content-Type:\s*([\w-]+\/[\w.+-]+)/gim)].map((m) => m[1]!.toLowerCase());
    expect(partTypes).toEqual(['multipart/alternative', 'text/plain', 'text/html']);

    expect(mail.text?.replace(/\n$/, '')).toBe(ANSWER);

    expect(typeof mail.html).toBe('string');
    const html = mail.html as string;
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('Fish &amp; Chips');
    expect(html).toContain('<a href="https://example.com/a?b=1&amp;c=2">https://example.com/a?b=1&amp;c=2</a>.');
    expect(html).toContain('<p>Hello Ann,</p>');
    expect(html).toContain('we serve Fish &amp; Chips on Fridays.<br>');
    expect(html.match(/<p>/g)).toHaveLength(3);
  });
});
