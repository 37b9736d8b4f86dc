/**
 * The Telegram connector in a real gateway (the author kit's, its embedded
 * sandbox as the platform), `mode: polling` with `api_url` at the Telegram
 * counterpart: a customer's text and document reach the platform, the
 * document as a signed link that downloads byte for byte; an agent's reply
 * whose second part failed once is retried (attempt 2) and, like a replay of
 * the delivered reply, reaches the customer once; a reply to a customer who
 * blocked the bot is dead-lettered with Telegram's words in the delivery log.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { until } from '../../support/wait.ts';
import { ARRIVES_MS, arrived, CONNECTOR, deliveries, gatewayFor, polling, telegram } from './support.ts';
import { expectFileLine } from '../../support/file-line.ts';

describe('Telegram connector, end to end (polling)', () => {
  it('a customer’s text and document reach the platform; the document is a signed link that downloads byte for byte', { timeout: 60_000 }, async () => {
    const tg = await telegram();
    const gw = await gatewayFor(tg);
    await polling(tg);
    const ann = tg.newCustomer({ first_name: 'Ann', last_name: 'Lee', username: 'annlee' });
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(30_000), Buffer.from([0, 255])]);
    tg.customerSays(ann.id, 'My parcel never came.');
    tg.customerSendsDocument(ann.id, { filename: 'receipt.pdf', contentType: 'application/pdf', content: pdf, caption: 'The receipt' });

    const [text, withFile] = await arrived(gw, ann.id, 2);
    expect(text).toBe('My parcel never came.');
    const lines = withFile!.split('\n');
    expect(lines.slice(0, 2)).toEqual(['The receipt', '']);
    const link = await expectFileLine(lines[2]!, '[attachment: receipt.pdf, 29 KB] <link>', pdf, 'application/pdf');
    expect(link).toMatch(/\/files\/[^?]+\?e=\d+&s=/);

    const chatId = await gw.chatOf(CONNECTOR, String(ann.id));
    const chat = (await (await fetch(`${gw.sandboxUrl}/_sandbox/chats/${chatId}`)).json()) as { visitor: { variables: Record<string, string> } };
    expect(chat.visitor.variables).toMatchObject({ name: 'Ann Lee', telegram_user_id: String(ann.id), telegram_username: 'annlee' });
  });

  it('an agent’s reply delivered a second time — a retry after a failed part, then a replay — reaches the customer once', { timeout: 60_000 }, async () => {
    const tg = await telegram();
    const gw = await gatewayFor(tg);
    await polling(tg);
    const ann = tg.newCustomer();
    tg.customerSays(ann.id, 'Tell me everything.');
    await arrived(gw, ann.id, 1);

    // Two parts; Telegram fails the second once: the job's second attempt must send the second part only.
    const first = `${'Step one. '.repeat(350).trim()}`;
    const second = `${'Step two. '.repeat(100).trim()}`;
    tg.fail('sendMessage', 502, 'Bad Gateway', { after: 1 });
    await gw.agentReply(CONNECTOR, String(ann.id), `${first}\n\n${second}`);
    const done = await gw.waitForDelivery(CONNECTOR, { timeoutMs: ARRIVES_MS });
    expect(tg.calls('sendMessage').map((c) => c.status)).toEqual([200, 502, 200]);
    expect(tg.sentTo(ann.id).map((m) => m.text)).toEqual([first, second]);
    const [row] = await deliveries(gw);
    expect(row!.external_id).toBe(tg.sentTo(ann.id).map((m) => m.message_id).join(','));

    // The same event handed to deliver again (an operator's replay): Telegram gets nothing new.
    const job = await gw.gateway.bridge.replayer.replayDelivery(done.id);
    await until(async () => {
      const again = await gw.gateway.store.read.sql.get<{ status: string; job_id: number }>(`select status, job_id from deliveries where id = ?`, [done.id]);
      return again?.job_id === job && again.status === 'delivered';
    }, ARRIVES_MS, 'the replayed delivery');
    expect(tg.sentTo(ann.id)).toHaveLength(2);
    expect(tg.calls('sendMessage')).toHaveLength(3);
  });

  it('a reply to a customer who blocked the bot is dead-lettered with Telegram’s reason, in the delivery log', { timeout: 60_000 }, async () => {
    const tg = await telegram();
    const gw = await gatewayFor(tg);
    await polling(tg);
    const ann = tg.newCustomer();
    tg.customerSays(ann.id, 'Bye.');
    await arrived(gw, ann.id, 1);
    tg.blockBot(ann.id);
    await gw.agentReply(CONNECTOR, String(ann.id), 'Sorry to see you go.');
    const dead = await gw.waitForDelivery(CONNECTOR, { statuses: ['dead'], timeoutMs: ARRIVES_MS });
    expect(dead.error).toBe(`TG_TELEGRAM_BOT_BLOCKED: Telegram at ${tg.host} answered sendMessage with 403: Forbidden: bot was blocked by the user`);
    expect(tg.calls('sendMessage').map((c) => c.status)).toEqual([403]);
    expect(tg.sentTo(ann.id)).toEqual([]);
  });
});
