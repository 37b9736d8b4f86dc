/**
 * The Telegram connector passes the contract suite every connector must pass
 * (`connectorContract`, threadgate/testing) against the counterpart, in both
 * modes: its poll (getUpdates, or the webhook's registration) starts and
 * stops cleanly with nothing left open, the bot token stays out of every log
 * line, the webhook route refuses requests without the secret header with a
 * 4xx, and an agent's reply delivered twice (the second with `attempt: 2`)
 * is one message in the customer's chat.
 */
import { describe, expect, it } from 'vitest';
import telegram from '../../../connectors/telegram/index.ts';
import { connectorContract, runContract } from '../../../src/connector/testing/index.ts';
import type { TestTelegram } from '../../support/telegram/telegram.ts';
import { startWebhookRelay } from '../../support/telegram/webhook-relay.ts';
import { settingsFor, telegram as counterpart } from './support.ts';

const TEXT = 'The contract delivers this twice';

async function contractIn(tg: TestTelegram, settings: Record<string, unknown>) {
  const ann = tg.newCustomer({ first_name: 'Ann' });
  const replies = () => tg.sentTo(ann.id).filter((m) => m.text === TEXT).length;
  const results = await runContract(connectorContract(telegram, { settings, pollForMs: 1_000, idempotent: { effects: replies, threadKey: String(ann.id) } }));
  return { results, replies };
}

describe('the Telegram connector and the contract suite', () => {
  it('passes every check in polling mode, delivery idempotent', { timeout: 60_000 }, async () => {
    const tg = await counterpart();
    const { results, replies } = await contractIn(tg, settingsFor(tg));
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results.filter((r) => r.skipped !== undefined)).toEqual([]);
    expect(replies()).toBe(1);
    expect(tg.calls('getUpdates').length).toBeGreaterThan(0);
  });

  it('passes every check in webhook mode: the route refuses what lacks the secret, the secret is never logged', { timeout: 60_000 }, async () => {
    const tg = await counterpart({ allowHttpWebhook: true });
    const relay = await startWebhookRelay();
    try {
      const secret = 'contract-webhook-secret-0123456789';
      const { results, replies } = await contractIn(tg, settingsFor(tg, { mode: 'webhook', webhook_url: `${relay.url}/connectors/contract/webhook`, webhook_secret: secret }));
      expect(results.filter((r) => !r.ok)).toEqual([]);
      expect(results.filter((r) => r.skipped !== undefined)).toEqual([]);
      expect(replies()).toBe(1);
      expect(tg.calls('setWebhook').length).toBeGreaterThan(0);
      expect(tg.calls('getUpdates')).toEqual([]);
    } finally {
      await relay.close();
    }
  });
});
