/**
 * The Request Tracker connector's sessions and settings, against the run's
 * real RT 5: after a restart of the gateway, resolving a ticket closes its
 * session and nothing is posted twice; reopening starts a new session with
 * the next message; rejected and deleted end it too. With `replies: comment`
 * agent replies (and suggestions, when asked) are comments, never mailed to
 * the requestor, while correspondence is. A refused token or an unknown queue
 * leaves the gateway running and the connector unhealthy, saying why.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConnectors } from '../../../src/connector/registry.ts';
import { chatTexts } from '../../support/gateway.ts';
import { requestTracker, type TestRequestTracker } from '../../support/request-tracker.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { until } from '../../support/wait.ts';
import { ARRIVES_MS, CONNECTOR, chatOfTicket, chatsOf, health, helpDesk } from './support.ts';

let rt: TestRequestTracker;
beforeAll(async () => {
  rt = await requestTracker();
}, 120_000);

const gatewayReplies = async (id: number) => (await rt.history(id)).filter((t) => t.creator === rt.seed.gateway_name && (t.type === 'Correspond' || t.type === 'Comment'));

describe('Request Tracker connector, sessions', () => {
  it('after a restart, resolving the ticket closes the session and nothing is posted twice; reopening starts a new one', { timeout: 90_000 }, async () => {
    const first = await helpDesk(rt);
    const id = await rt.createTicket(first.queue, { subject: 'VPN down', content: 'Cannot connect.' });
    const thread = await chatOfTicket(first.tg, id);
    await rt.correspond(id, 'Still down.');
    await until(async () => (await chatTexts(first.tg, thread.chatId)).length === 2, ARRIVES_MS, 'the correspondence');
    await first.tg.gateway.close();

    await rt.correspond(id, 'Down while you were away.');
    await rt.setStatus(id, 'resolved');
    const { tg } = await helpDesk(rt, { queue: first.queue, after: first.tg });
    await until(async () => (await chatsOf(tg, thread.threadId))[0]?.ended === true, ARRIVES_MS, 'the session to end');
    await until(async () => (await health(tg)).details.polls >= 3, ARRIVES_MS, 'more polls');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['VPN down\n\nCannot connect.', 'Still down.', 'Down while you were away.']);

    await rt.setStatus(id, 'open');
    await rt.correspond(id, 'It is down again.');
    await until(async () => (await chatsOf(tg, thread.threadId)).length === 2, ARRIVES_MS, 'a second chat');
    const [latest, earlier] = await chatsOf(tg, thread.threadId);
    expect([earlier!.ended, latest!.ended]).toEqual([true, false]);
    await until(async () => (await chatTexts(tg, latest!.id)).length === 1, ARRIVES_MS, 'the message in the new chat');
    expect(await chatTexts(tg, latest!.id)).toEqual(['It is down again.']);
  });

  it('rejecting or deleting a ticket ends its session', { timeout: 60_000 }, async () => {
    const { tg, queue } = await helpDesk(rt);
    const rejected = await rt.createTicket(queue, { subject: 'Spam', content: 'Buy now' });
    const deleted = await rt.createTicket(queue, { subject: 'Duplicate', content: 'Same as before' });
    const [a, b] = [await chatOfTicket(tg, rejected), await chatOfTicket(tg, deleted)];
    await rt.setStatus(rejected, 'rejected');
    await rt.setStatus(deleted, 'deleted');
    await until(async () => (await chatsOf(tg, a.threadId))[0]?.ended === true, ARRIVES_MS, 'the rejected ticket’s session to end');
    await until(async () => (await chatsOf(tg, b.threadId))[0]?.ended === true, ARRIVES_MS, 'the deleted ticket’s session to end');
  });
});

describe('Request Tracker connector, replies as comments', () => {
  it('replies: comment writes comments (never mailed to the requestor); suggestions as comments when asked; correspondence is mailed', { timeout: 60_000 }, async () => {
    const { tg, queue } = await helpDesk(rt, { extra: { replies: 'comment', suggestions_as_comments: true } });
    const id = await rt.createTicket(queue, { subject: 'Refund', content: 'Order 77.' });
    const thread = await chatOfTicket(tg, id);
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/reply_suggestions`, { suggestion: 'Offer a voucher.' });
    await until(async () => (await gatewayReplies(id)).length === 1, ARRIVES_MS, 'the suggestion as a comment');
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'Refund issued for order 77.' });
    await until(async () => (await gatewayReplies(id)).length === 2, ARRIVES_MS, 'the reply as a comment');
    const replies = await gatewayReplies(id);
    expect(replies.map((t) => t.type)).toEqual(['Comment', 'Comment']);
    expect(replies[0]!.text).toMatch(/^Suggested reply \(not sent to the customer, ref [0-9a-f]{12}\):\n\nOffer a voucher\.$/);
    expect(rt.sentMail()).not.toContain('Refund issued for order 77.');

    const plain = await helpDesk(rt, { queue });
    await plain.tg.sandbox.call('POST', `/_sandbox/chats/${(await chatOfTicket(plain.tg, id)).chatId}/agent_messages`, { text: 'A mailed answer 4711.' });
    await until(async () => rt.sentMail().includes('A mailed answer 4711.'), ARRIVES_MS, 'the correspondence mailed to the requestor');
  });
});

describe('Request Tracker connector, refused settings', () => {
  it('a refused token: the gateway runs, the connector is unhealthy with RT’s 401, the token never logged', async () => {
    const logLines: string[] = [];
    const token = `1-${rt.seed.gateway_id}-${'f'.repeat(32)}`;
    const { tg } = await helpDesk(rt, { extra: { token }, noWait: true, logLines });
    await until(async () => (await health(tg)).details.consecutive_failures >= 2, ARRIVES_MS, 'two start-up attempts');
    const h = await health(tg);
    expect([h.ok, h.details.connected]).toEqual([false, false]);
    expect(h.details.last_error).toMatch(/RT at .* answered GET \/REST\/2\.0\/user\/\d+ with 401 \(the token, or user and password, was refused\)/);
    expect((await tg.call('GET', '/healthz')).status).toBe(200);
    expect(logLines.join('\n')).not.toContain(token);
  });

  it('a queue the gateway user cannot see: unhealthy, naming the queue', async () => {
    const { tg } = await helpDesk(rt, { queue: 'No Such Queue', noWait: true });
    await until(async () => (await health(tg)).details.last_error != null, ARRIVES_MS, 'the queue error');
    expect((await health(tg)).details.last_error).toContain('no queue "No Such Queue"');
  });

  it('token together with user and password, or neither, is refused when the settings are read, naming the key', async () => {
    const entry = { name: CONNECTOR, type: 'request-tracker', url: 'https://rt.example.com', queue: 'General' };
    const { problems } = await loadConnectors(
      [
        { ...entry, token: 'secret-token-1', user: 'gw', password: 'secret-pw-1' },
        { ...entry, name: 'b' },
        { ...entry, name: 'c', user: 'gw' },
        { ...entry, name: 'd', token: 't', url: 'https://u:pw@rt.example.com' },
      ],
      tempDir(),
    );
    expect(problems.map((p) => [p.path, p.message])).toEqual([
      [['connectors', 0, 'token'], 'give either token, or user and password, not both'],
      [['connectors', 1, 'token'], 'expected token (or user and password) of the RT user the gateway acts as'],
      [['connectors', 2, 'password'], 'expected the password that goes with user'],
      [['connectors', 3, 'url'], 'must not carry user:password@ (give token, or user and password, as its own keys)'],
    ]);
    expect(JSON.stringify(problems)).not.toMatch(/secret-token-1|secret-pw-1/);
  });
});
