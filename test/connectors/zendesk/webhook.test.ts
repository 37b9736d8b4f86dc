/**
 * Zendesk's webhook wakes the poller early and names the ticket, which is
 * then read at once — ahead of the export, which leaves the last minute out:
 * here the account's clock does not move after the write, so only the
 * webhook can bring the ticket within the test. Requests that are not signed
 * with the secret (or signed too long ago) are refused with 401 and wake
 * nothing.
 */
import { describe, expect, it } from 'vitest';
import { chatTexts } from '../../support/gateway.ts';
import { until } from '../../support/wait.ts';
import { ARRIVES_MS, CONNECTOR, chatOfTicket, health, helpDesk, zendesk } from './support.ts';

const SECRET = 'dGhpc19zZWNyZXRfaXNfZm9yX3Rlc3Rpbmdfb25seQ==';

describe('Zendesk connector, webhook', () => {
  it('a signed webhook naming a ticket brings it within seconds, though the poll is every 30 s and the export is a minute behind', { timeout: 60_000 }, async () => {
    const desk = await zendesk({ settleWrites: false });
    const tg = await helpDesk(desk, { extra: { poll_seconds: 30, webhook_secret: SECRET } });
    const id = await desk.openTicket({ subject: 'Urgent', text: 'The site is down.' });
    const body = JSON.stringify({ ticket_id: String(id), event: 'created' });
    const answer = await tg.call('POST', `/connectors/${CONNECTOR}/webhook`, body, { 'content-type': 'application/json', ...desk.signWebhook(SECRET, body) });
    expect([answer.status, answer.body]).toEqual([200, { woken: true, ticket_id: String(id) }]);
    const thread = await chatOfTicket(tg, id);
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 1, ARRIVES_MS, 'the opening message');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['Urgent\n\nThe site is down.']);
    // The round the webhook started ends after its message was stored (the post may come first).
    await until(async () => (await health(tg)).details.polls >= 2, ARRIVES_MS, 'the woken round to end');
    expect((await health(tg)).details).toMatchObject({ webhook: true, webhooks_received: 1, polls: 2 });
  });

  it('an unsigned, wrongly signed or stale request is refused with 401 and wakes nothing', { timeout: 30_000 }, async () => {
    const desk = await zendesk();
    const tg = await helpDesk(desk, { extra: { poll_seconds: 30, webhook_secret: SECRET } });
    const body = JSON.stringify({ ticket_id: '1' });
    const stale = new Date(Date.now() - 10 * 60_000).toISOString();
    for (const headers of [{}, desk.signWebhook('another-secret-entirely', body), desk.signWebhook(SECRET, body, stale)]) {
      const answer = await tg.call('POST', `/connectors/${CONNECTOR}/webhook`, body, { 'content-type': 'application/json', ...headers });
      expect([answer.status, answer.body.code]).toEqual([401, 'TG_SIGNATURE_INVALID']);
    }
    expect((await health(tg)).details).toMatchObject({ webhooks_received: 0, polls: 1 });
  });
});
