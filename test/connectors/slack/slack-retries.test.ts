/**
 * Slack delivering events more than once, or not at all, and the gateway
 * restarting, through a real gateway: the same event sent again with
 * X-Slack-Retry-Num posts nothing twice and downloads no file twice; events
 * Slack retries because every answer came "too late" make one message; a
 * file Slack answers 503 for is downloaded again and the message posted with
 * it; a restart on the same store posts nothing twice, and the catch-up
 * posts what Slack gave up delivering while the gateway was down (a new
 * thread and a reply in an old one).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { chatTexts } from '../../support/gateway.ts';
import { sleep, until } from '../../support/wait.ts';
import { agentReplies, ARRIVES_MS, chatOf, CONNECTOR, deliveryRows, gatewayFor, health, slack, textsWhen } from './support.ts';

const inboundCount = async (tg: Awaited<ReturnType<typeof gatewayFor>>) =>
  Number(((await tg.gateway.store.read.sql.get(`select count(*) as n from inbound_messages where connector = ?`, [CONNECTOR])) as { n: number }).n);

describe('Slack connector, events again and events lost', () => {
  it('the same event again (X-Slack-Retry-Num: 1) posts nothing twice and downloads its file once', { timeout: 60_000 }, async () => {
    const s = await slack();
    const tg = await gatewayFor(s);
    const url = `${tg.gateway.url}/connectors/${CONNECTOR}/events`;
    const file = s.ws.addFile({ name: 'log.txt', mimetype: 'text/plain', content: Buffer.from('error 42\n'), user: s.customer.id });
    for (const fields of [{ text: 'It broke' }, { text: 'Here is the log', subtype: 'file_share', files: [file.id] }]) {
      const message = s.ws.addMessage({ channel: s.support.id, user: s.customer.id, ...fields });
      const body = JSON.stringify(s.events.envelope({ type: 'message', channel: s.support.id, user: s.customer.id, ts: message.ts, ...fields, files: fields.files?.map((id) => ({ id, file_access: 'check_file_info' })) }));
      for (const retry of [{}, { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' }] as Record<string, string>[]) {
        expect((await s.events.post(url, body, { ...s.events.signedHeaders(body), ...retry })).status).toBe(200);
      }
      const chatId = await chatOf(tg, s.support.id, message.ts);
      await textsWhen(tg, chatId, 1);
    }
    await sleep(500);
    expect(await inboundCount(tg)).toBe(2);
    expect(s.calls.filter((c) => c.method === 'file download').map((c) => c.status)).toEqual([200]);
    expect((await health(tg)).details.events).toMatchObject({ events: 4, retries: 2, submitted: 1, queued: 1, duplicates: 2 });
  });

  it('events whose answers all came “too late” are retried by Slack and make one message', { timeout: 60_000 }, async () => {
    const s = await slack({ eventTimeoutMs: 0 });
    const tg = await gatewayFor(s);
    const said = await s.customerSays(s.support, 'Is anyone reading this?');
    const attempts = await said.delivered;
    expect(attempts.map((a) => [a.retryNum, a.reason])).toEqual([[0, 'http_timeout'], [1, 'http_timeout'], [2, 'http_timeout'], [3, 'http_timeout']]);
    const chatId = await chatOf(tg, s.support.id, said.ts);
    await sleep(500);
    expect(await chatTexts(tg, chatId)).toEqual(['Is anyone reading this?']);
    expect(await inboundCount(tg)).toBe(1);
  });

  it('a file Slack answers 503 for is downloaded again, and the message posted with it', { timeout: 60_000 }, async () => {
    const s = await slack();
    const tg = await gatewayFor(s);
    s.failures.push({ method: 'file download', status: 503, times: 1 });
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), randomBytes(2_000)]);
    const said = await s.customerSharesFile(s.support, { name: 'screen.png', mimetype: 'image/png', content: png });
    const [text] = await textsWhen(tg, await chatOf(tg, s.support.id, said.ts), 1);
    expect(text).toMatch(/^\[attachment: screen\.png, 2 KB\] http/);
    expect(s.calls.filter((c) => c.method === 'file download').map((c) => c.status)).toEqual([503, 200]);
    const link = / (http\S+)$/.exec(text!)![1]!;
    expect(Buffer.from(await (await fetch(link)).arrayBuffer()).equals(png)).toBe(true);
  });

  it('a restart on the same store posts nothing twice; the catch-up posts what Slack gave up delivering meanwhile', { timeout: 90_000 }, async () => {
    const s = await slack();
    const first = await gatewayFor(s, { extra: { catch_up_seconds: 1 } });
    const root = await s.customerSays(s.support, 'Printer on fire');
    const file = await s.customerSharesFile(s.support, { name: 'photo.jpg', mimetype: 'image/jpeg', content: randomBytes(3_000) }, { threadTs: root.ts });
    const chatId = await chatOf(first, s.support.id, root.ts);
    await textsWhen(first, chatId, 2);
    await agentReplies(first, chatId, 'Unplug it.');
    await until(async () => (await deliveryRows(first)).some((r) => r.status === 'delivered'), ARRIVES_MS, 'the reply');
    await until(async () => (await health(first)).details.catch_up.rounds >= 2, ARRIVES_MS, 'two catch-up rounds');
    await first.gateway.close();

    // While the gateway is down, Slack's retries of these events all fail (no connection), and it gives up.
    const late = await s.customerSays(s.support, 'It is out now', { threadTs: root.ts });
    const fresh = await s.customerSays(s.support, 'A new question');
    expect((await late.delivered).every((a) => a.reason === 'connection_failed')).toBe(true);
    await fresh.delivered;

    const second = await gatewayFor(s, { after: first, extra: { catch_up_seconds: 1 } });
    expect(await textsWhen(second, chatId, 3)).toEqual(['Printer on fire', expect.stringMatching(/^\[attachment: photo\.jpg/), 'It is out now']);
    expect(await textsWhen(second, await chatOf(second, s.support.id, fresh.ts), 1)).toEqual(['A new question']);
    // An event of before the restart, sent late again by Slack: a duplicate.
    const again = JSON.stringify(s.events.envelope({ type: 'message', channel: s.support.id, user: s.customer.id, text: 'Printer on fire', ts: root.ts }));
    await s.events.post(`${second.gateway.url}/connectors/${CONNECTOR}/events`, again, { ...s.events.signedHeaders(again), 'x-slack-retry-num': '3', 'x-slack-retry-reason': 'http_error' });
    await until(async () => (await health(second)).details.catch_up.rounds >= 2, ARRIVES_MS, 'two catch-up rounds after the restart');
    expect(await chatTexts(second, chatId)).toHaveLength(3);
    expect(await inboundCount(second)).toBe(4);
    expect(s.calls.filter((c) => c.method === 'file download')).toHaveLength(1);
    expect(s.botMessages(s.support, root.ts)).toHaveLength(1);
    expect(file.ts).toBeDefined();
  });
});
