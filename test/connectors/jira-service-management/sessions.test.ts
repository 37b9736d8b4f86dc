/**
 * The Jira Service Management connector's sessions, against the counterpart
 * of a Jira Cloud site and the sandbox: after a restart of the gateway,
 * resolving a request closes its session and nothing is posted twice;
 * reopening starts a new session with the next comment; a status of the
 * category Done without a resolution, and a resolution set without a change
 * of status, end it too. With `replies: internal` agent replies (and
 * suggestions, with `suggestions_as_internal`) are internal comments.
 */
import { describe, expect, it } from 'vitest';
import { chatTexts, type TestGateway } from '../../support/gateway.ts';
import { until } from '../../support/wait.ts';
import { ARRIVES_MS, CONNECTOR, agentAnswers, chatOfRequest, chatsOf, health, helpDesk, jiraSite } from './support.ts';

const stored = async (tg: TestGateway) =>
  (await tg.gateway.store.read.sql.get(`select count(*) as n, count(distinct external_id) as d from inbound_messages where connector = ? and kind = 'message'`, [CONNECTOR])) as { n: number; d: number };

describe('Jira Service Management connector, sessions', () => {
  it('after a restart, resolving the request closes the session and nothing is posted twice; reopening starts a new one', { timeout: 90_000 }, async () => {
    const jsm = await jiraSite();
    const first = await helpDesk(jsm);
    const { id } = await jsm.openRequest(jsm.customer, { summary: 'VPN down', description: 'Cannot connect.' });
    const thread = await chatOfRequest(first, id);
    await jsm.comment(jsm.customer, id, 'Still down.');
    await until(async () => (await chatTexts(first, thread.chatId)).length === 2, ARRIVES_MS, 'the comment');
    await first.gateway.close();

    await jsm.comment(jsm.customer, id, 'Down while you were away.');
    await jsm.transition(jsm.agent, id, 'resolve');
    const tg = await helpDesk(jsm, { after: first });
    await until(async () => (await chatsOf(tg, thread.threadId))[0]?.ended === true, ARRIVES_MS, 'the session to end');
    await until(async () => (await health(tg)).details.polls >= 3, ARRIVES_MS, 'more polls');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['VPN down\n\nCannot connect.', 'Still down.', 'Down while you were away.']);
    expect(await stored(tg)).toEqual({ n: 3, d: 3 });

    await jsm.transition(jsm.agent, id, 'reopen');
    await jsm.comment(jsm.customer, id, 'It is down again.');
    await until(async () => (await chatsOf(tg, thread.threadId)).length === 2, ARRIVES_MS, 'a second chat');
    const [latest, earlier] = await chatsOf(tg, thread.threadId);
    expect([earlier!.ended, latest!.ended]).toEqual([true, false]);
    await until(async () => (await chatTexts(tg, latest!.id)).length === 1, ARRIVES_MS, 'the comment in the new chat');
    expect(await chatTexts(tg, latest!.id)).toEqual(['It is down again.']);
  });

  it('a Done status without a resolution, or a resolution without a Done status, ends the session', { timeout: 60_000 }, async () => {
    const jsm = await jiraSite();
    const tg = await helpDesk(jsm);
    const closed = await jsm.openRequest(jsm.customer, { summary: 'Spam', description: 'Buy now' });
    const resolved = await jsm.openRequest(jsm.customer, { summary: 'Duplicate', description: 'Same as before' });
    const [a, b] = [await chatOfRequest(tg, closed.id), await chatOfRequest(tg, resolved.id)];
    await jsm.transition(jsm.agent, closed.id, 'close');
    jsm.store.setResolution(jsm.store.issue(resolved.id)!, 'Duplicate');
    await until(async () => (await chatsOf(tg, a.threadId))[0]?.ended === true, ARRIVES_MS, 'the closed request’s session to end');
    await until(async () => (await chatsOf(tg, b.threadId))[0]?.ended === true, ARRIVES_MS, 'the resolved request’s session to end');
  });
});

describe('Jira Service Management connector, replies as internal comments', () => {
  it('replies: internal writes internal comments; suggestions as internal comments when asked; nothing public', { timeout: 60_000 }, async () => {
    const jsm = await jiraSite();
    const tg = await helpDesk(jsm, { extra: { replies: 'internal', suggestions_as_internal: true } });
    const { id } = await jsm.openRequest(jsm.customer, { summary: 'Refund', description: 'Order 77.' });
    const thread = await chatOfRequest(tg, id);
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/reply_suggestions`, { suggestion: 'Offer a voucher.' });
    await until(async () => jsm.gatewayComments(id).length === 1, ARRIVES_MS, 'the suggestion as an internal comment');
    await agentAnswers(tg, thread.chatId, 'Refund issued for order 77.');
    await until(async () => jsm.gatewayComments(id).length === 2, ARRIVES_MS, 'the reply as an internal comment');
    const own = jsm.gatewayComments(id);
    expect(own.map((c) => c.public)).toEqual([false, false]);
    expect(own[0]!.body).toMatch(/^Suggested reply \(not sent to the customer, ref [0-9a-f]{12}\):\n\nOffer a voucher\.$/);
    expect(own[1]!.body).toMatch(/^\S.* \(via chat, ref [0-9a-f]{12}\):\n\nRefund issued for order 77\.$/);
  });

  it('without suggestions_as_internal a suggestion is only counted', { timeout: 60_000 }, async () => {
    const jsm = await jiraSite();
    const tg = await helpDesk(jsm);
    const { id } = await jsm.openRequest(jsm.customer, { summary: 'Quiet', description: 'x' });
    const thread = await chatOfRequest(tg, id);
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/reply_suggestions`, { suggestion: 'Say hello.' });
    await until(async () => (await health(tg)).details.reply_suggestions_ignored === 1, ARRIVES_MS, 'the suggestion to be counted');
    expect(jsm.gatewayComments(id)).toEqual([]);
  });
});
