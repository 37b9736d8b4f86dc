/**
 * The Zammad connector's sessions, against the Zammad counterpart: after a
 * restart of the gateway, closing a ticket closes its session and nothing is
 * posted twice; reopening starts a new session with the next message; a
 * merged ticket's session ends too. A 429 with `Retry-After` is waited out,
 * polls and replies alike. With `replies: note` agent replies are public
 * notes (not mailed), and suggestions internal notes when asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatTexts } from '../../support/gateway.ts';
import { until } from '../../support/wait.ts';
import { startZammad, type TestZammad } from '../../support/zammad/zammad-counterpart.ts';
import { ARRIVES_MS, CONNECTOR, chatOfTicket, chatsOf, gatewayArticles, health, helpDesk } from './support.ts';

let zammad: TestZammad;
beforeAll(async () => {
  zammad = await startZammad();
});
afterAll(() => zammad.close());

describe('Zammad connector, sessions', () => {
  it('after a restart, closing the ticket closes the session and nothing is posted twice; reopening starts a new one', { timeout: 60_000 }, async () => {
    const first = await helpDesk(zammad);
    const id = await zammad.customer.openTicket(first.group, { title: 'VPN down', body: 'Cannot connect.' });
    const thread = await chatOfTicket(first.tg, id);
    await zammad.customer.reply(id, 'Still down.');
    await until(async () => (await chatTexts(first.tg, thread.chatId)).length === 2, ARRIVES_MS, 'the answer');
    await first.tg.gateway.close();

    await zammad.customer.reply(id, 'Down while you were away.');
    await zammad.staff.setState(id, 'closed');
    const { tg } = await helpDesk(zammad, { group: first.group, after: first.tg });
    await until(async () => (await chatsOf(tg, thread.threadId))[0]?.ended === true, ARRIVES_MS, 'the session to end');
    await until(async () => (await health(tg)).details.polls >= 3, ARRIVES_MS, 'more polls');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['VPN down\n\nCannot connect.', 'Still down.', 'Down while you were away.']);

    await zammad.staff.setState(id, 'open');
    await zammad.customer.reply(id, 'It is down again.');
    await until(async () => (await chatsOf(tg, thread.threadId)).length === 2, ARRIVES_MS, 'a second chat');
    const [latest, earlier] = await chatsOf(tg, thread.threadId);
    expect([earlier!.ended, latest!.ended]).toEqual([true, false]);
    await until(async () => (await chatTexts(tg, latest!.id)).length === 1, ARRIVES_MS, 'the message in the new chat');
    expect(await chatTexts(tg, latest!.id)).toEqual(['It is down again.']);
  });

  it('a merged ticket ends its session; a ticket moved among open states does not', { timeout: 30_000 }, async () => {
    const { tg, group } = await helpDesk(zammad);
    const merged = await zammad.customer.openTicket(group, { title: 'Duplicate', body: 'Same as before' });
    const pending = await zammad.customer.openTicket(group, { title: 'Waiting', body: 'For parts' });
    const [a, b] = [await chatOfTicket(tg, merged), await chatOfTicket(tg, pending)];
    await zammad.staff.setState(pending, 'pending reminder');
    await zammad.staff.setState(merged, 'merged');
    await until(async () => (await chatsOf(tg, a.threadId))[0]?.ended === true, ARRIVES_MS, 'the merged ticket’s session to end');
    expect((await chatsOf(tg, b.threadId))[0]?.ended).toBe(false);
  });
});

describe('Zammad connector, Retry-After', () => {
  it('a 429 with Retry-After is waited out by the poller, and a reply throttled is written once', { timeout: 60_000 }, async () => {
    const { tg, group } = await helpDesk(zammad);
    const id = await zammad.customer.openTicket(group, { title: 'Slow down', body: 'Busy desk.' });
    const thread = await chatOfTicket(tg, id);

    const gate = zammad.server.gate;
    const before = gate.throttledCount;
    gate.throttleNext(1, 2);
    await until(async () => gate.throttledCount > before, ARRIVES_MS, 'a throttled request');
    const refused = zammad.server.requests.findLast((r) => r.status === 429)!;
    await until(async () => zammad.server.requests.some((r) => r.at > refused.at && r.status === 200), ARRIVES_MS, 'a request after the wait');
    const next = zammad.server.requests.find((r) => r.at > refused.at)!;
    expect(next.at - refused.at).toBeGreaterThanOrEqual(1_900);
    await until(async () => (await health(tg)).details.consecutive_failures === 0, ARRIVES_MS, 'the poller healthy again');

    gate.throttleNext(3, 1);
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'Written once, after the wait.' });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus(CONNECTOR)).delivered === 1, 30_000, 'the reply');
    expect(gate.throttledCount - before).toBe(4);
    expect((await gatewayArticles(zammad, id)).map((a) => a.body.endsWith('\n\nWritten once, after the wait.'))).toEqual([true]);
    await zammad.customer.reply(id, 'Thanks.');
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 2, ARRIVES_MS, 'the answer');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['Slow down\n\nBusy desk.', 'Thanks.']);
  });
});

describe('Zammad connector, replies as notes', () => {
  it('replies: note writes public notes (not mailed); suggestions as internal notes when asked', { timeout: 30_000 }, async () => {
    const { tg, group } = await helpDesk(zammad, { extra: { replies: 'note', suggestions_as_internal_notes: true } });
    const id = await zammad.customer.openTicket(group, { title: 'Refund', body: 'Order 77.' });
    const thread = await chatOfTicket(tg, id);
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/reply_suggestions`, { suggestion: 'Offer a voucher.' });
    await until(async () => (await gatewayArticles(zammad, id)).length === 1, ARRIVES_MS, 'the suggestion as an internal note');
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'Refund issued for order 77.' });
    await until(async () => (await gatewayArticles(zammad, id)).length === 2, ARRIVES_MS, 'the reply as a public note');
    const own = await gatewayArticles(zammad, id);
    expect(own.map((a) => [a.type, a.internal, a.to])).toEqual([['note', true, ''], ['note', false, '']]);
    expect(own[0]!.body).toMatch(/^Suggested reply \(not sent to the customer, ref [0-9a-f]{12}\):\n\nOffer a voucher\.$/);
    // The customer sees the reply, never the suggestion; neither comes back to the chat.
    expect((await zammad.customer.articles(id)).map((a) => a.id)).not.toContain(own[0]!.id);
    await until(async () => (await health(tg)).details.polls >= 3, ARRIVES_MS, 'more polls');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['Refund\n\nOrder 77.']);
  });
});
