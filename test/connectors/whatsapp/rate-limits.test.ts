/**
 * WhatsApp's rate limits, waited out: the number's throughput (130429) and a
 * customer's pair rate (131056) come without Retry-After, so the connector
 * waits its own time (2 s, 6 s) and resumes the reply where it stopped — a
 * reply over 4,096 characters goes as two messages (cut at its paragraph),
 * the second refused once and sent after the wait, the first never again.
 */
import { describe, expect, it } from 'vitest';
import { agentSays, ANN, customerTexts, settled, waGateway, whatsapp } from './support.ts';

const MESSAGES = /\/messages$/;

describe('WhatsApp rate limits', () => {
  it('a throughput refusal (130429) is waited out, and the reply resumes with its second part only', { timeout: 30_000 }, async () => {
    // One message per 1.5 s from the number: the reply's second part comes too soon.
    const wa = await whatsapp({ limits: { throughput: { max: 1, windowMs: 1_500 } } });
    const tg = await waGateway(wa);
    await wa.customerSays(ANN, 'Tell me everything.');
    await customerTexts(tg, ANN, 1);
    const long = `${'All the details. '.repeat(200).trim()}\n\n${'And more. '.repeat(150).trim()}`;
    expect(long.length).toBeGreaterThan(4_096);
    await agentSays(tg, ANN, long);
    const [delivery] = await settled(tg, 1);

    expect(delivery).toMatchObject({ status: 'delivered', error: null });
    const sent = wa.sentTo(ANN);
    expect(sent.map((m) => m.body!.length <= 4_096)).toEqual([true, true]);
    expect(sent.map((m) => m.body).join('\n\n')).toBe(long);
    expect(delivery!.external_id).toBe(sent[0]!.wamid);
    const posts = wa.requests.filter((r) => r.method === 'POST' && MESSAGES.test(r.path));
    expect(posts.map((r) => [r.status, r.code])).toEqual([[200, undefined], [400, 130429], [200, undefined]]);
    expect(posts[2]!.at - posts[1]!.at).toBeGreaterThanOrEqual(2_000);
  });

  it('a pair rate refusal (131056) waits 6 s before the reply is tried again', { timeout: 30_000 }, async () => {
    const wa = await whatsapp();
    const tg = await waGateway(wa);
    await wa.customerSays(ANN, 'Ping');
    await customerTexts(tg, ANN, 1);
    wa.failures.push({ match: MESSAGES, status: 400, error: { message: '(#131056) (Business Account, Consumer Account) pair rate limit hit', code: 131056 }, times: 1 });
    await agentSays(tg, ANN, 'Pong');
    await settled(tg, 1);
    const posts = wa.requests.filter((r) => r.method === 'POST' && MESSAGES.test(r.path));
    expect(posts.map((r) => r.status)).toEqual([400, 200]);
    expect(posts[1]!.at - posts[0]!.at).toBeGreaterThanOrEqual(6_000);
    expect(wa.sentTo(ANN).map((m) => m.body)).toEqual(['Pong']);
  });
});
