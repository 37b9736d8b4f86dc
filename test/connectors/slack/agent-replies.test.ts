/**
 * Agent replies through a real gateway into the Slack counterpart: the
 * platform's webhook sent twice (the same event) is one delivery and one
 * message in the thread; a chat.postMessage answered 429 with Retry-After
 * is posted once, no sooner than it asked; a bot removed from the channel
 * dead-letters the reply at once with Slack's word (not_in_channel), never
 * retried; a reply suggestion is recorded as skipped.
 */
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../../src/platform/signature.ts';
import { messageCreatedEnvelope } from '../../support/events.ts';
import { until } from '../../support/wait.ts';
import { agentReplies, ARRIVES_MS, chatOf, CONNECTOR, deliveryRows, gatewayFor, slack, textsWhen } from './support.ts';

describe('Slack connector, agent replies', () => {
  it('the platform’s webhook sent twice is one message in the Slack thread', { timeout: 60_000 }, async () => {
    const s = await slack();
    const tg = await gatewayFor(s);
    const root = await s.customerSays(s.support, 'Where is my parcel?');
    const chatId = await chatOf(tg, s.support.id, root.ts);
    await textsWhen(tg, chatId, 1);
    const thread = await tg.gateway.store.read.threads.byKey(CONNECTOR, `${s.support.id}/${root.ts}`);
    const { config_id: configId, secret } = (await tg.gateway.store.read.sql.get(`select config_id, secret from channel_registrations where connector = ?`, [CONNECTOR])) as { config_id: string; secret: string };
    const raw = JSON.stringify(messageCreatedEnvelope({ threadId: thread!.threadId, chatId, configId, roomId: tg.sandbox.roomId, text: 'It left the depot.', senderName: 'Sam Agent' }));
    const answers = [];
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${tg.gateway.url}/webhooks/${CONNECTOR}`, { method: 'POST', headers: { 'content-type': 'application/json', ...signedHeaders(secret, raw) }, body: raw });
      answers.push([res.status, ((await res.json()) as { duplicate: boolean }).duplicate]);
    }
    expect(answers).toEqual([[200, false], [200, true]]);
    await until(async () => (await deliveryRows(tg)).some((r) => r.status === 'delivered'), ARRIVES_MS, 'the reply');
    await new Promise((r) => setTimeout(r, 500));
    expect(s.botMessages(s.support, root.ts).map((m) => m.text)).toEqual(['*Sam Agent*: It left the depot.']);
    expect((await deliveryRows(tg)).map((r) => r.status)).toEqual(['delivered', 'duplicate']);
  });

  it('a 429 with Retry-After is waited out, and the reply posted once', { timeout: 60_000 }, async () => {
    const s = await slack();
    const tg = await gatewayFor(s);
    const root = await s.customerSays(s.support, 'Hello?');
    const chatId = await chatOf(tg, s.support.id, root.ts);
    s.failures.push({ method: 'chat.postMessage', status: 429, retryAfter: 1, times: 1 });
    await agentReplies(tg, chatId, 'Right here.');
    await until(async () => (await deliveryRows(tg)).some((r) => r.status === 'delivered'), ARRIVES_MS, 'the reply, after the wait');
    const posts = s.calls.filter((c) => c.method === 'chat.postMessage');
    expect(posts.map((c) => c.status)).toEqual([429, 200]);
    expect(posts[1]!.at - posts[0]!.at).toBeGreaterThanOrEqual(1_000);
    expect(s.botMessages(s.support, root.ts).map((m) => m.text)).toEqual([expect.stringMatching(/: Right here\.$/)]);
  });

  it('not_in_channel dead-letters the reply with Slack’s words, without retrying; a suggestion is skipped', { timeout: 60_000 }, async () => {
    const s = await slack();
    const tg = await gatewayFor(s);
    const root = await s.customerSays(s.support, 'Anyone?');
    const chatId = await chatOf(tg, s.support.id, root.ts);
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/reply_suggestions`, { suggestion: 'Say hello' });
    await until(async () => (await deliveryRows(tg)).some((r) => r.status === 'skipped'), ARRIVES_MS, 'the suggestion skipped');
    s.botRemovedFrom(s.support);
    await agentReplies(tg, chatId, 'Hello!');
    await until(async () => (await deliveryRows(tg)).some((r) => r.status === 'dead'), ARRIVES_MS, 'the reply dead-lettered');
    const dead = (await deliveryRows(tg)).find((r) => r.status === 'dead')!;
    expect(dead.error).toMatch(/^TG_SLACK_NOT_IN_CHANNEL: Slack refused chat\.postMessage: not_in_channel \(the bot is not a member of the channel/);
    expect(s.calls.filter((c) => c.method === 'chat.postMessage').map((c) => c.error)).toEqual(['not_in_channel']);
    expect(s.botMessages(s.support)).toEqual([]);
  });
});
