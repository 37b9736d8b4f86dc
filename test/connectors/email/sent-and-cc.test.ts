/**
 * Replies as a mail client sends them, end to end against the run's Dovecot
 * and OpenSMTPD: the customer's Cc'd colleague stays on the thread (reply-all,
 * never the support address itself), the colleague's answer joins the same
 * chat, and a copy of each reply lands in the support mailbox's Sent folder
 * (the one Dovecot marks \Sent), once, as sent.
 */
import { simpleParser, type AddressObject } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import { fetchAll, mailServers, sendMail, waitForMail, type MailUser } from '../../support/mail-servers.ts';
import { sleep, until } from '../../support/wait.ts';
import { emailConnector } from './settings.ts';

const MAIL_ARRIVES_MS = 10_000;

const addresses = (value: AddressObject | AddressObject[] | undefined) =>
  [value ?? []].flat().flatMap((a) => a.value.map((v) => v.address?.toLowerCase()));

function rawMail(f: { from: MailUser; to: string; cc?: string; subject: string; id: string; inReplyTo?: string; text: string }): string {
  return [
    `From: ${f.from.address}`,
    `To: ${f.to}`,
    ...(f.cc ? [`Cc: ${f.cc}`] : []),
    `Subject: ${f.subject}`,
    `Message-ID: ${f.id}`,
    ...(f.inReplyTo ? [`In-Reply-To: ${f.inReplyTo}`, `References: ${f.inReplyTo}`] : []),
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    f.text,
    '',
  ].join('\r\n');
}

async function chats(tg: TestGateway): Promise<string[]> {
  const rows = (await tg.gateway.store.read.sql.all(`select chat_id as "chatId" from threads where connector = 'mail' and chat_id is not null`)) as { chatId: string }[];
  return rows.map((r) => r.chatId);
}

async function visitorTexts(tg: TestGateway, chatId: string): Promise<string[]> {
  const all = (await tg.sandbox.call('GET', `/_sandbox/chats/${chatId}/messages`)).body.results as { type: string; sender_type: string; message: string }[];
  return all.filter((m) => m.type === 'msg' && m.sender_type === 'visitor').map((m) => m.message);
}

describe('e-mail replies with Cc and a Sent copy', () => {
  it('answer everyone on the thread, take the colleague\'s answer into the same chat, and file each reply in Sent once', async () => {
    const servers = mailServers();
    const support = await servers.addUser('support', 'example.test');
    const customer = await servers.addUser('ann', 'customer.test');
    const colleague = await servers.addUser('bob', 'customer.test');
    const tg = await startTestGateway({ connectors: [emailConnector(support, { reconnect_max_seconds: 2 })] });

    await sendMail({
      from: customer.address,
      to: [support.address, colleague.address],
      raw: rawMail({ from: customer, to: support.address, cc: colleague.address, subject: 'Broken order', id: '<first@customer.test>', text: 'The box was empty.' }),
    });
    await until(async () => (await chats(tg)).length === 1, MAIL_ARRIVES_MS, 'the mail on the platform');
    const [chatId] = await chats(tg);
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'Sorry! A new box is on its way.' });

    const [reply] = await waitForMail(customer, 1, MAIL_ARRIVES_MS);
    const first = await simpleParser(reply!.raw);
    expect(addresses(first.to)).toEqual([customer.address]);
    expect(addresses(first.cc)).toEqual([colleague.address]);
    // The colleague got the customer's mail (Cc) and now the reply.
    const colleagueMails = await waitForMail(colleague, 2, MAIL_ARRIVES_MS);
    expect(colleagueMails.map((m) => m.messageId)).toContain(first.messageId);

    // The colleague answers all (to the reply's Reply-To, the customer in Cc): same thread, same chat.
    await sendMail({
      from: colleague.address,
      to: [first.replyTo!.value[0]!.address!, customer.address],
      raw: rawMail({ from: colleague, to: first.replyTo!.value[0]!.address!, cc: customer.address, subject: 'Re: Broken order', id: '<second@customer.test>', inReplyTo: first.messageId!, text: 'Thanks, we got the tracking number.' }),
    });
    await until(async () => (await visitorTexts(tg, chatId!)).length === 2, MAIL_ARRIVES_MS, "the colleague's answer in the chat");
    expect(await chats(tg)).toEqual([chatId]);
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'Glad to hear it.' });

    // The second reply goes to whoever wrote last, everyone else in Cc; never to the support address.
    const mails = await waitForMail(customer, 3, MAIL_ARRIVES_MS);
    const second = await simpleParser(mails.find((m) => m.subject === 'Re: Broken order' && m.messageId !== first.messageId && m.messageId !== '<second@customer.test>')!.raw);
    expect(addresses(second.to)).toEqual([colleague.address]);
    expect(addresses(second.cc)).toEqual([customer.address]);

    // Both replies in the support mailbox's Sent folder, once each, seen, as sent.
    await until(async () => (await fetchAll(support, 'Sent')).length === 2, MAIL_ARRIVES_MS, 'two copies in Sent');
    const copies = await fetchAll(support, 'Sent');
    expect(copies.map((c) => c.messageId)).toEqual([first.messageId, second.messageId]);
    expect(copies.every((c) => c.flags.includes('\\Seen'))).toBe(true);
    expect((await simpleParser(copies[0]!.raw)).text).toBe((await simpleParser(reply!.raw)).text);
    await sleep(500);
    expect(await fetchAll(support, 'Sent')).toHaveLength(2);
    const health = (await tg.call('GET', '/readyz')).body.connectors.mail.details;
    expect(health.sent_copies).toEqual({ appended: 2, alreadyThere: 0, lastError: null });
  });

  it('with reply_all: false answers the sender only; with sent_copy: false files nothing', async () => {
    const servers = mailServers();
    const support = await servers.addUser('support', 'example.test');
    const customer = await servers.addUser('ann', 'customer.test');
    const colleague = await servers.addUser('bob', 'customer.test');
    const tg = await startTestGateway({ connectors: [emailConnector(support, { reconnect_max_seconds: 2, reply_all: false, sent_copy: false })] });
    await sendMail({
      from: customer.address,
      to: [support.address, colleague.address],
      raw: rawMail({ from: customer, to: support.address, cc: colleague.address, subject: 'Question', id: '<q@customer.test>', text: 'Hello?' }),
    });
    await until(async () => (await chats(tg)).length === 1, MAIL_ARRIVES_MS, 'the mail on the platform');
    await tg.sandbox.call('POST', `/_sandbox/chats/${(await chats(tg))[0]}/agent_messages`, { text: 'Hello!' });
    const [reply] = await waitForMail(customer, 1, MAIL_ARRIVES_MS);
    const parsed = await simpleParser(reply!.raw);
    expect(addresses(parsed.to)).toEqual([customer.address]);
    expect(parsed.cc).toBeUndefined();
    await sleep(1_000);
    expect(await fetchAll(support, 'Sent')).toEqual([]);
    expect((await waitForMail(colleague, 1, MAIL_ARRIVES_MS)).map((m) => m.messageId)).toEqual(['<q@customer.test>']);
  });
});
