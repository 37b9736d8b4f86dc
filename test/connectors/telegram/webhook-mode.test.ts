/**
 * Webhook mode end to end: the gateway sets the webhook (its URL at a relay
 * standing for the public address, and the secret) on the counterpart; a
 * customer's message pushed by the counterpart with the right
 * X-Telegram-Bot-Api-Secret-Token is submitted and reaches the platform; an
 * update with a wrong or missing header is refused with 401 and submits
 * nothing.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { startWebhookRelay } from '../../support/telegram/webhook-relay.ts';
import { until } from '../../support/wait.ts';
import { ARRIVES_MS, arrived, CONNECTOR, gatewayFor, telegram } from './support.ts';

const SECRET = 'webhook-secret-for-the-test_0123456789';

describe('Telegram connector, webhook mode', () => {
  it('an update with the right secret header is submitted; a wrong or missing one is refused 401 and submits nothing', { timeout: 60_000 }, async () => {
    const relay = await startWebhookRelay();
    onTestFinished(() => relay.close());
    // A local Bot API server's rules: an http:// webhook on any port (the gateway listens on a loopback port here).
    const tg = await telegram({ allowHttpWebhook: true, webhookRetryMs: 100 });
    const url = `${relay.url}/connectors/${CONNECTOR}/webhook`;
    const gw = await gatewayFor(tg, { extra: { mode: 'webhook', webhook_url: url, webhook_secret: SECRET } });
    relay.target = gw.url;
    await until(() => tg.calls('setWebhook').some((c) => c.status === 200), ARRIVES_MS, 'setWebhook');
    expect(tg.calls('setWebhook')[0]!.params).toMatchObject({ url, secret_token: SECRET, max_connections: '1' });

    const ann = tg.newCustomer();
    tg.customerSays(ann.id, 'Hello by webhook');
    expect(await arrived(gw, ann.id, 1)).toEqual(['Hello by webhook']);
    expect(tg.webhookPosts.filter((p) => p.status === 200).map((p) => p.secret)).toEqual([SECRET]);

    const forged = { update_id: 1, message: { message_id: 99, date: 1, chat: { id: ann.id, type: 'private' }, from: { id: ann.id, is_bot: false, first_name: 'Mallory' }, text: 'Forged' } };
    const refusedHeaders: Record<string, string>[] = [{ 'x-telegram-bot-api-secret-token': 'not-the-secret' }, {}];
    for (const headers of refusedHeaders) {
      const answer = await gw.request(CONNECTOR, 'POST', '/webhook', { body: forged, headers });
      expect(answer).toMatchObject({ status: 401, body: { code: 'TG_TELEGRAM_WEBHOOK_SECRET_INVALID' } });
    }
    const inbound = await gw.gateway.store.read.sql.all<{ external_id: string }>(`select external_id from inbound_messages where connector = ?`, [CONNECTOR]);
    expect(inbound.map((m) => m.external_id)).toEqual([`${ann.id}:1`]);
    expect(await arrived(gw, ann.id, 1)).toEqual(['Hello by webhook']);
    expect(tg.calls('getUpdates')).toEqual([]);
  });
});
