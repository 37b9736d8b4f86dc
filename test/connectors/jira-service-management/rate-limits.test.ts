/**
 * Jira's rate limits (429 with `Retry-After`), against the counterpart of a
 * Jira Cloud site and a real gateway: the poller leaves Jira alone as long as
 * it asks and still brings every change, once; an agent reply refused with a
 * 429 is written again only after its `Retry-After`, and once.
 */
import { describe, expect, it } from 'vitest';
import { chatTexts } from '../../support/gateway.ts';
import { until } from '../../support/wait.ts';
import { ARRIVES_MS, CONNECTOR, agentAnswers, chatOfRequest, helpDesk, jiraSite } from './support.ts';

describe('Jira Service Management connector, rate limits', () => {
  it('polls under a tight limit wait out each Retry-After, never ask early, and bring every change once', { timeout: 90_000 }, async () => {
    const jsm = await jiraSite();
    const tg = await helpDesk(jsm);
    // Four requests per three seconds: a round with a changed request needs three (search, issue, request).
    jsm.limitGateway({ requests: 4, windowMs: 3_000 });
    const { id } = await jsm.openRequest(jsm.customer, { summary: 'Slow down', description: 'Too many requests.' });
    await jsm.comment(jsm.customer, id, 'First.');
    await jsm.comment(jsm.customer, id, 'Second.');
    const thread = await chatOfRequest(tg, id);
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 3, ARRIVES_MS * 3, 'every comment, under the limit');
    await until(async () => jsm.server.gate.stats.limited >= 2, ARRIVES_MS * 2, 'the limit to be hit again by later polls');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['Slow down\n\nToo many requests.', 'First.', 'Second.']);
    expect(jsm.server.gate.stats.early).toBe(0);
  });

  it('an agent reply refused with 429 is written again no sooner than its Retry-After, and once', { timeout: 60_000 }, async () => {
    const jsm = await jiraSite();
    const tg = await helpDesk(jsm);
    const { id } = await jsm.openRequest(jsm.customer, { summary: 'Busy Jira', description: 'x' });
    const thread = await chatOfRequest(tg, id);
    let armed = false;
    jsm.server.onRequest = ({ method, path }) => {
      if (!armed && method === 'POST' && path.endsWith('/comment')) {
        armed = true;
        jsm.server.gate.throttleNow(jsm.gateway.accountId, 2);
      }
    };
    await agentAnswers(tg, thread.chatId, 'Patience, please.');
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus(CONNECTOR)).delivered === 1, 30_000, 'the reply, after the wait');
    const posts = jsm.server.answers.filter((a) => a.method === 'POST' && a.path === `/rest/servicedeskapi/request/${id}/comment`);
    expect(posts.map((p) => p.status)).toEqual([429, 201]);
    expect(posts[0]!.retryAfterS).toBe(2);
    expect(posts[1]!.at - posts[0]!.at).toBeGreaterThanOrEqual(2_000 - 5);
    expect(jsm.gatewayComments(id).map((c) => c.body.endsWith('\n\nPatience, please.'))).toEqual([true]);
  });
});
