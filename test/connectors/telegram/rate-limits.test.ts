/**
 * Telegram's flood control waited out as Telegram asks: a 429's
 * `parameters.retry_after` (in the body; there is no Retry-After header) is
 * how long the poller waits before its next getUpdates, and how long the
 * job queue holds a reply before sending it again. Both waits here are 2 s,
 * longer than the poller's first backoff (at most 1 s) and the tests' job
 * backoff (50 ms), so a connector that did not read `retry_after` would be
 * seen asking sooner.
 */
import { describe, expect, it } from 'vitest';
import { ARRIVES_MS, arrived, CONNECTOR, gatewayFor, telegram } from './support.ts';

const RETRY_AFTER_S = 2;

describe('Telegram connector, flood control', () => {
  it('polling: a getUpdates answered 429 is asked again no sooner than retry_after, and the message still arrives', { timeout: 60_000 }, async () => {
    const tg = await telegram();
    tg.flood('getUpdates', RETRY_AFTER_S);
    const ann = tg.newCustomer();
    tg.customerSays(ann.id, 'Anyone there?');
    const gw = await gatewayFor(tg);
    expect(await arrived(gw, ann.id, 1)).toEqual(['Anyone there?']);
    const polls = tg.calls('getUpdates');
    expect(polls[0]).toMatchObject({ status: 429, description: `Too Many Requests: retry after ${RETRY_AFTER_S}` });
    expect(polls[1]!.receivedAt - polls[0]!.at).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000);
  });

  it('sending: a reply answered 429 is sent once, no sooner than retry_after', { timeout: 60_000 }, async () => {
    const tg = await telegram();
    const gw = await gatewayFor(tg);
    const ann = tg.newCustomer();
    tg.customerSays(ann.id, 'Hello?');
    await arrived(gw, ann.id, 1);
    tg.flood('sendMessage', RETRY_AFTER_S);
    await gw.agentReply(CONNECTOR, String(ann.id), 'Right here.');
    await gw.waitForDelivery(CONNECTOR, { timeoutMs: ARRIVES_MS });
    const sends = tg.calls('sendMessage');
    expect(sends.map((c) => c.status)).toEqual([429, 200]);
    expect(sends[1]!.receivedAt - sends[0]!.at).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000);
    expect(tg.sentTo(ann.id).map((m) => m.text)).toEqual(['Right here.']);
  });
});
