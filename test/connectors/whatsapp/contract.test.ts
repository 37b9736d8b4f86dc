/**
 * The WhatsApp connector passes the contract suite every connector must pass
 * (`connectorContract`, threadgate/testing), against the WhatsApp
 * counterpart: it starts and stops cleanly, its webhook route refuses an
 * empty, a malformed and an unsigned request with a 4xx, its access token,
 * app secret and verify token stay out of the log, and an agent's reply
 * delivered twice (the second with `attempt: 2`) is one WhatsApp message —
 * the reply's progress says it was sent.
 */
import { describe, expect, it } from 'vitest';
import whatsappConnector from '../../../connectors/whatsapp/index.ts';
import { connectorContract, runContract } from '../../../src/connector/testing/index.ts';
import { ANN, whatsapp } from './support.ts';

describe('the WhatsApp connector and the contract suite', () => {
  it('passes every check, delivery idempotent', async () => {
    const wa = await whatsapp();
    wa.openWindow(ANN);
    const replies = () => wa.sentTo(ANN).filter((m) => m.body === 'The contract delivers this twice').length;
    const results = await runContract(connectorContract(whatsappConnector, { settings: wa.settings(), idempotent: { effects: replies, threadKey: ANN } }));
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results.filter((r) => r.skipped !== undefined)).toEqual([]);
    expect(replies()).toBe(1);
  });
});
