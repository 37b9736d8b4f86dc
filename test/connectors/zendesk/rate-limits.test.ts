/**
 * Zendesk's rate limits, waited out as Zendesk asks: the incremental export
 * (its own limit, here 2 requests in 4 s) answers 429 with Retry-After, and
 * the poller's next export comes no sooner than that, while tickets still
 * arrive; a reply answered 429 is written later, once.
 */
import { describe, expect, it } from 'vitest';
import { chatTexts } from '../../support/gateway.ts';
import { until } from '../../support/wait.ts';
import { ARRIVES_MS, CONNECTOR, chatOfTicket, gatewayComments, health, helpDesk, zendesk } from './support.ts';

const EXPORT = '/api/v2/incremental/tickets/cursor.json';

describe('Zendesk connector, rate limits', () => {
  it('a 429 of the export is waited out as its Retry-After asks, and tickets still arrive', { timeout: 60_000 }, async () => {
    const desk = await zendesk({ limits: { export: { max: 2, windowMs: 4_000 } } });
    const tg = await helpDesk(desk);
    await until(() => desk.requests.some((r) => r.path === EXPORT && r.status === 429), ARRIVES_MS, 'the export to refuse a request');
    await until(async () => (await health(tg)).details.last_error?.includes('429') === true, ARRIVES_MS, 'health to name the 429');
    const id = await desk.openTicket({ subject: 'Slow down', text: 'Too many requests?' });
    const thread = await chatOfTicket(tg, id);
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 1, ARRIVES_MS, 'the opening message');

    const exports = desk.requests.filter((r) => r.path === EXPORT);
    const refused = exports.filter((r) => r.status === 429);
    expect(refused.some((refusal) => exports.some((r) => r.at > refusal.at))).toBe(true);
    for (const refusal of refused) {
      // The poller asks every second; after a 429 it waits as long as Retry-After says (here 1 to 4 s).
      const next = exports.find((r) => r.at > refusal.at);
      if (next !== undefined) expect(next.at - refusal.at).toBeGreaterThanOrEqual(refusal.retryAfter! * 1000);
    }
    await until(async () => (await health(tg)).details.last_error === null, ARRIVES_MS, 'a clean poll again');
  });

  it('a reply answered 429 is written once, after its Retry-After', { timeout: 60_000 }, async () => {
    const desk = await zendesk();
    const tg = await helpDesk(desk);
    const id = await desk.openTicket({ subject: 'Busy', text: 'Hello?' });
    const thread = await chatOfTicket(tg, id);
    desk.failures.push({ match: /^PUT \/api\/v2\/tickets\/\d+\.json$/, status: 429, times: 1, retryAfter: 1 });
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'Right here.' });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus(CONNECTOR)).delivered === 1, ARRIVES_MS, 'the reply, after the wait');
    const puts = desk.requests.filter((r) => r.method === 'PUT');
    expect(puts.map((r) => r.status)).toEqual([429, 200]);
    expect(puts[1]!.at - puts[0]!.at).toBeGreaterThanOrEqual(1_000);
    expect(gatewayComments(desk, id).map((c) => c.body.endsWith('\n\nRight here.'))).toEqual([true]);
  });
});
