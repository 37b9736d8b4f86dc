/**
 * A Zammad trigger's webhook wakes the poller early and names the ticket,
 * which is then read at once — ahead of the search, whose index here takes a
 * change a minute late, and of the next poll, 30 s away. The counterpart
 * calls the webhook as Zammad's trigger job does (its default payload,
 * `X-Hub-Signature`). Requests not signed with the token are refused with
 * 401 and wake nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { chatTexts } from '../../support/gateway.ts';
import { until } from '../../support/wait.ts';
import { startZammad, type TestZammad } from '../../support/zammad/zammad-counterpart.ts';
import { addWebhook, signature } from '../../support/zammad/zammad-webhooks.ts';
import { ARRIVES_MS, CONNECTOR, chatOfTicket, health, helpDesk } from './support.ts';

const TOKEN = 'zammad-webhook-signature-token';
let zammad: TestZammad | undefined;
afterEach(async () => {
  await zammad?.close();
  zammad = undefined;
});

describe('Zammad connector, trigger webhook', () => {
  it('a ticket and a reply arrive within seconds though the index is a minute late and the poll every 30 s', { timeout: 60_000 }, async () => {
    zammad = await startZammad();
    const { tg, group } = await helpDesk(zammad, { extra: { poll_seconds: 30, webhook_secret: TOKEN } });
    zammad.server.store.indexLagMs = 60_000;
    const webhook = addWebhook(zammad.server.store, `${tg.gateway.url}/connectors/${CONNECTOR}/webhook`, TOKEN);

    const id = await zammad.customer.openTicket(group, { title: 'Urgent', body: 'The site is down.' });
    const thread = await chatOfTicket(tg, id);
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 1, ARRIVES_MS, 'the opening message');
    await zammad.customer.reply(id, 'Still down.');
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 2, ARRIVES_MS, 'the reply');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['Urgent\n\nThe site is down.', 'Still down.']);
    await webhook.settled();
    expect(webhook.answers).toEqual([200, 200]);
    await until(async () => (await health(tg)).details.polls >= 3, ARRIVES_MS, 'the woken rounds to end');
    expect((await health(tg)).details).toMatchObject({ webhook: true, webhooks_received: 2 });
  });

  it('a ticket of another group named by a webhook is not read as a conversation', { timeout: 30_000 }, async () => {
    zammad = await startZammad();
    const { tg } = await helpDesk(zammad, { extra: { poll_seconds: 30, webhook_secret: TOKEN } });
    const other = await zammad.newGroup();
    const webhook = addWebhook(zammad.server.store, `${tg.gateway.url}/connectors/${CONNECTOR}/webhook`, TOKEN);
    await zammad.customer.openTicket(other, { title: 'Elsewhere', body: 'Not for this desk.' });
    await webhook.settled();
    await until(async () => (await health(tg)).details.polls >= 2, ARRIVES_MS, 'the woken round to end');
    expect([webhook.answers, (await tg.gateway.store.read.sql.all('select thread_key from threads where connector = ?', [CONNECTOR])).length]).toEqual([[200], 0]);
  });

  it('an unsigned or wrongly signed request is refused with 401 and wakes nothing', { timeout: 30_000 }, async () => {
    zammad = await startZammad();
    const { tg } = await helpDesk(zammad, { extra: { poll_seconds: 30, webhook_secret: TOKEN } });
    const body = JSON.stringify({ ticket: { id: 1 }, article: {} });
    for (const headers of [{} as Record<string, string>, { 'x-hub-signature': signature('another-token-entirely', body) }, { 'x-hub-signature': signature(TOKEN, body).replace('sha1=', 'sha256=') }]) {
      const answer = await tg.call('POST', `/connectors/${CONNECTOR}/webhook`, body, { 'content-type': 'application/json', ...headers });
      expect([answer.status, answer.body.code]).toEqual([401, 'TG_SIGNATURE_INVALID']);
    }
    const signed = await tg.call('POST', `/connectors/${CONNECTOR}/webhook`, body, { 'content-type': 'application/json', 'x-hub-signature': signature(TOKEN, body) });
    expect([signed.status, signed.body]).toEqual([200, { woken: true, ticket_id: '1' }]);
    expect((await health(tg)).details).toMatchObject({ webhooks_received: 1 });
  });
});
