/**
 * The e-mail connector in a real gateway, against real Dovecot and OpenSMTPD
 * on loopback and the sandbox as the platform: customer mail in over SMTP,
 * agent replies out over SMTP into the customer's mailbox, threads that hold
 * together across clients, and noise that never reaches the chat.
 */
import { describe, expect, it } from 'vitest';
import { until } from '../../support/wait.ts';
import { chatTexts, startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { fetchAll, mailServers, openImap, restartDovecot, sendMail, waitForMail, type MailUser } from '../../support/mail-servers.ts';
import { emailConnector } from './settings.ts';

/** Local delivery plus one IDLE notice takes well under a second; CI machines are slow and shared. */
const MAIL_ARRIVES_MS = 10_000;

interface Mailroom {
  tg: TestGateway;
  support: MailUser;
  customer: MailUser;
}

async function mailroom(extra: Record<string, unknown> = {}): Promise<Mailroom> {
  const servers = mailServers();
  const support = await servers.addUser('support', 'example.test');
  const customer = await servers.addUser('ann', 'customer.test');
  const tg = await startTestGateway({ connectors: [emailConnector(support, { from_name: 'Support', reconnect_max_seconds: 2, ...extra })] });
  return { tg, support, customer };
}

const threadsOf = async (tg: TestGateway) =>
  (await tg.gateway.store.read.sql.all(`select thread_key as key, thread_id as "threadId", chat_id as "chatId" from threads where connector = 'mail' order by id`)) as {
    key: string; threadId: string; chatId: string | null;
  }[];

async function firstChat(tg: TestGateway): Promise<string> {
  await until(async () => (await threadsOf(tg))[0]?.chatId != null, MAIL_ARRIVES_MS, 'the first mail to reach the platform');
  return (await threadsOf(tg))[0]!.chatId!;
}

const header = (mail: { headers: Record<string, string[]> }, name: string) => mail.headers[name]?.[0];

/** A customer mail, its chat, and the agent's answer as it arrived in the customer's mailbox. */
async function answered({ tg, support, customer }: Mailroom, subject: string, text: string, answer: string) {
  const sent = await sendMail({ from: customer.address, to: support.address, subject, text });
  const chatId = await firstChat(tg);
  await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: answer });
  const [reply] = await waitForMail(customer, 1, MAIL_ARRIVES_MS);
  return { sent, chatId, reply: reply! };
}

describe('e-mail connector, end to end', () => {
  it('a customer mail over SMTP becomes a chat message; the agent reply arrives in the customer mailbox, threaded', async () => {
    const { tg, support, customer } = await mailroom();
    const sent = await sendMail({ from: `Ann Example <${customer.address}>`, to: support.address, subject: 'Broken kettle', text: 'It will not boil.\n' });
    const chatId = await firstChat(tg);
    await until(async () => (await chatTexts(tg, chatId)).length === 1, MAIL_ARRIVES_MS, 'the chat message');
    expect((await chatTexts(tg, chatId))[0]).toBe('Broken kettle\n\nIt will not boil.');
    expect((await threadsOf(tg))[0]!.key).toBe(sent.messageId);

    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'Have you tried descaling it?' });
    const [reply] = await waitForMail(customer, 1, MAIL_ARRIVES_MS);
    expect(reply!.subject).toBe('Re: Broken kettle');
    expect(header(reply!, 'in-reply-to')).toBe(sent.messageId);
    expect(header(reply!, 'references')).toContain(sent.messageId);
    // Guards against: a person's reply marked `Auto-Submitted: auto-replied`, which RFC 3834 reserves for automatic mail.
    expect(header(reply!, 'auto-submitted')).toBeUndefined();
    expect(header(reply!, 'x-threadgate-connector')).toBe('mail');
    expect(header(reply!, 'reply-to')).toMatch(new RegExp(`^${support.address.split('@')[0]}\\+[a-z2-7]{12}@example\\.test$`));
    expect(header(reply!, 'from')).toContain(support.address);
    expect(reply!.raw.toString('utf8')).toContain('Have you tried descaling it?');
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('mail')).delivered === 1, MAIL_ARRIVES_MS, 'the delivery record');
    const row = (await tg.gateway.store.read.sql.get(`select external_id from deliveries where status = 'delivered'`)) as { external_id: string };
    expect(row.external_id).toBe(reply!.messageId);
  });

  it("the customer's answer from another client (In-Reply-To elsewhere, References intact) joins the same thread and chat", async () => {
    const room = await mailroom();
    const { tg, support, customer } = room;
    const { sent: first, chatId, reply: agentMail } = await answered(room, 'Invoice 17', 'Wrong amount.\n', 'Which line is wrong?');

    await sendMail({
      from: customer.address,
      to: support.address,
      subject: 'Re: Invoice 17',
      text: 'Line 3.\n\nOn Mon, Support wrote:\n> Which line is wrong?\n',
      headers: { 'In-Reply-To': '<draft-42@phone.customer.test>', References: `${first.messageId} ${agentMail.messageId}` },
    });
    await until(async () => (await chatTexts(tg, chatId)).length === 2, MAIL_ARRIVES_MS, 'the answer in the same chat');
    expect(await chatTexts(tg, chatId)).toEqual(['Invoice 17\n\nWrong amount.', 'Line 3.']);
    expect((await threadsOf(tg))).toHaveLength(1);
  });

  it('an answer that kept only the +token Reply-To address still finds its thread', async () => {
    const room = await mailroom();
    const { tg, customer } = room;
    const { chatId, reply: agentMail } = await answered(room, 'Lost parcel', 'Where is it?\n', 'Checking now.');
    const replyTo = header(agentMail, 'reply-to')!;
    await sendMail({ from: customer.address, to: replyTo, subject: 'parcel', text: 'Any news?\n' });
    await until(async () => (await chatTexts(tg, chatId)).length === 2, MAIL_ARRIVES_MS, 'the token-threaded answer');
    expect((await threadsOf(tg))).toHaveLength(1);
  });

  it('copies of our own reply coming back are skipped as our own: by our header, or by our Message-ID when a forwarder dropped the header and rewrote From', async () => {
    // Guards against: loop protection that rested on Auto-Submitted, which people's replies no longer carry.
    const room = await mailroom();
    const { tg, support, customer } = room;
    const { chatId, reply } = await answered(room, 'Noisy fan', 'It hums.\n', 'Is it the new model?');
    const raw = reply.raw.toString('utf8');
    expect(raw).not.toMatch(/^auto-submitted:/im);

    // A Bcc-like copy under a fresh Message-ID: our header says it is ours.
    const bcc = raw.replace(/^Message-ID:.*$/im, `Message-ID: <copy-1@customer.test>`);
    await sendMail({ from: customer.address, to: support.address, raw: bcc });
    // A list or forwarder that drops X- headers and rewrites From: our Message-ID says it is ours.
    const forwarded = raw.replace(/^X-Threadgate-Connector:.*\r?\n/im, '').replace(/^From:.*$/im, `From: Forwarder <fwd@customer.test>`);
    expect(forwarded).not.toMatch(/x-threadgate-connector/i);
    await sendMail({ from: customer.address, to: support.address, raw: forwarded });

    await until(async () => (await tg.gateway.store.read.skipped.list('mail')).length === 2, MAIL_ARRIVES_MS, 'both copies skipped');
    const skipped = (await tg.gateway.store.read.skipped.list('mail')).map((s) => [s.externalId, s.code, s.reason]).sort();
    expect(skipped).toEqual([
      ['<copy-1@customer.test>', 'TG_EMAIL_OWN', 'X-Threadgate-Connector present: sent by the gateway'],
      [reply.messageId, 'TG_EMAIL_OWN', `Message-ID ${reply.messageId} is one the gateway gave its own mail`],
    ]);
    expect(await chatTexts(tg, chatId)).toEqual(['Noisy fan\n\nIt hums.']);
  });

  it('mail of a list named in accept_list_ids is posted; mail of another list is skipped as bulk', async () => {
    const { tg, support, customer } = await mailroom({ accept_list_ids: ['Support team <team.example.test>'] });
    await sendMail({ from: customer.address, to: support.address, subject: 'Newsletter', text: 'Our offers.\n', headers: { 'List-Id': '<news.customer.test>' } });
    await sendMail({ from: customer.address, to: support.address, subject: 'Printer on fire', text: 'Help.\n', headers: { 'List-Id': 'Team <team.example.test>' } });
    const chatId = await firstChat(tg);
    await until(async () => (await tg.gateway.store.read.skipped.list('mail')).length === 1, MAIL_ARRIVES_MS, 'the newsletter skipped');
    expect(await chatTexts(tg, chatId)).toEqual(['Printer on fire\n\nHelp.']);
    expect((await tg.gateway.store.read.skipped.list('mail')).map((s) => s.code)).toEqual(['TG_EMAIL_BULK']);
  });

  it('an out-of-office reply and a bounce are recorded as skipped and never posted', async () => {
    const { tg, support, customer } = await mailroom();
    await sendMail({ from: customer.address, to: support.address, subject: 'Out of office', text: 'Back Monday.\n', headers: { 'Auto-Submitted': 'auto-replied' } });
    await sendMail({
      from: `MAILER-DAEMON@customer.test`,
      to: support.address,
      raw: [
        `From: Mail Delivery System <MAILER-DAEMON@customer.test>`,
        `To: ${support.address}`,
        'Subject: Undelivered Mail Returned to Sender',
        'Message-ID: <bounce-1@customer.test>',
        'MIME-Version: 1.0',
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
        '',
        '--b1',
        'Content-Type: text/plain',
        '',
        'The mail could not be delivered.',
        '--b1',
        'Content-Type: message/delivery-status',
        '',
        'Reporting-MTA: dns; customer.test',
        '',
        'Final-Recipient: rfc822; nobody@customer.test',
        'Action: failed',
        'Status: 5.1.1',
        '--b1--',
        '',
      ].join('\r\n'),
    });
    await sendMail({ from: customer.address, to: support.address, subject: 'A real question', text: 'Hello?\n' });
    const chatId = await firstChat(tg);
    await until(async () => (await chatTexts(tg, chatId)).length === 1, MAIL_ARRIVES_MS, 'the real question');
    // OpenSMTPD may deliver the three mails in any order: the real question can be posted before the others are read.
    await until(async () => (await tg.gateway.store.read.skipped.list('mail')).length === 2, MAIL_ARRIVES_MS, 'both automatic mails skipped');
    const skipped = (await tg.gateway.store.read.skipped.list('mail')).map((s) => s.code).sort();
    expect(skipped).toEqual(['TG_EMAIL_AUTO_REPLY', 'TG_EMAIL_BOUNCE']);
    expect((await threadsOf(tg))).toHaveLength(1);
    expect((await fetchAll(support)).every((m) => m.flags.includes('\\Seen'))).toBe(true);
  });
});

describe('e-mail connector, nothing lost or doubled', () => {
  const visitorTexts = async (tg: TestGateway) => {
    const out: string[] = [];
    for (const t of (await threadsOf(tg))) if (t.chatId) out.push(...(await chatTexts(tg, t.chatId)));
    return out.sort();
  };

  it('a restarted gateway goes on from its cursor: mail sent while it was down is posted once, nothing twice', async () => {
    const { tg, support, customer } = await mailroom();
    for (let i = 1; i <= 3; i++) await sendMail({ from: customer.address, to: support.address, subject: `before ${i}`, text: 'x\n' });
    await until(async () => (await visitorTexts(tg)).length === 3, MAIL_ARRIVES_MS, '3 mails');
    await tg.gateway.close();
    for (let i = 1; i <= 2; i++) await sendMail({ from: customer.address, to: support.address, subject: `while down ${i}`, text: 'x\n' });
    await waitForMail(support, 5, MAIL_ARRIVES_MS);
    const again = await startTestGateway({
      sandbox: tg.sandbox,
      dir: tg.dir,
      connectors: [emailConnector(support, { reconnect_max_seconds: 2 })],
    });
    await until(async () => (await visitorTexts(again)).length === 5, MAIL_ARRIVES_MS, '5 mails after the restart');
    await new Promise((r) => setTimeout(r, 500));
    expect(await visitorTexts(again)).toEqual(['before 1\n\nx', 'before 2\n\nx', 'before 3\n\nx', 'while down 1\n\nx', 'while down 2\n\nx']);
  });

  it('200 mails put in the mailbox while the gateway is down are all posted once after it starts', { timeout: 120_000 }, async () => {
    const servers = mailServers();
    const support = await servers.addUser('bulk', 'example.test');
    const client = await openImap(support);
    for (let i = 0; i < 200; i++) {
      await client.append('INBOX', [
        `From: Customer ${i} <c${i}@customer.test>`, `To: ${support.address}`, `Subject: question ${i}`,
        `Message-ID: <q${i}.${support.address}>`, 'Date: Sun, 22 Nov 2026 10:00:00 +0000', 'Content-Type: text/plain; charset=utf-8', '', `body ${i}`, '',
      ].join('\r\n'));
    }
    const tg = await startTestGateway({ connectors: [emailConnector(support)] });
    const posted = async () => (await tg.gateway.store.read.sql.get(`select count(*) as n from inbound_messages where connector = 'mail' and status = 'posted'`)) as { n: number };
    await until(async () => (await posted()).n === 200, 90_000, '200 posted messages');
    const total = (await tg.gateway.store.read.sql.get(`select count(*) as n, count(distinct external_id) as d from inbound_messages where connector = 'mail'`));
    expect(total).toEqual({ n: 200, d: 200 });
    expect((await threadsOf(tg))).toHaveLength(200);
    let platformMessages = 0;
    for (const t of (await threadsOf(tg))) platformMessages += (await chatTexts(tg, t.chatId!)).length;
    expect(platformMessages).toBe(200);
  });

  it('Dovecot restarting mid-stream loses nothing and posts nothing twice', { timeout: 60_000 }, async () => {
    const { tg, support, customer } = await mailroom();
    for (let i = 1; i <= 3; i++) await sendMail({ from: customer.address, to: support.address, subject: `first ${i}`, text: 'x\n' });
    await until(async () => (await visitorTexts(tg)).length === 3, MAIL_ARRIVES_MS, '3 mails');
    await restartDovecot();
    for (let i = 1; i <= 3; i++) await sendMail({ from: customer.address, to: support.address, subject: `second ${i}`, text: 'x\n' });
    await until(async () => (await visitorTexts(tg)).length === 6, 30_000, '6 mails after the restart');
    await new Promise((r) => setTimeout(r, 500));
    expect(await visitorTexts(tg)).toEqual(['first 1\n\nx', 'first 2\n\nx', 'first 3\n\nx', 'second 1\n\nx', 'second 2\n\nx', 'second 3\n\nx']);
    const health = (await tg.call('GET', '/readyz')).body.connectors.mail;
    expect(health.details.reconnects).toBeGreaterThanOrEqual(1);
  });
});
