/**
 * Outgoing webhooks (spec 03, Events), how they are sent: delivery and retry
 * rules (backoff, limits, timeouts, network errors, deleted configurations),
 * checked by a real receiver on a real port.
 */
import { describe, expect, it } from 'vitest';
import { sleep, startReceiver, startTestSandbox, visitorMessage } from './support.ts';
import { AFTER_ALL_RETRIES_MS, attempts, attemptsReach, linkedChat, RETRY_BASE_MS, verified } from './webhooks-support.ts';

describe('delivery and retries', () => {
  it('retries a 500 with exponential backoff until a 2xx, re-signing the same body bytes; every attempt is recorded', async () => {
    const receiver = await startReceiver((n) => ({ status: n < 3 ? 500 : 204 }));
    const sb = await startTestSandbox({ retryBaseMs: RETRY_BASE_MS });
    const { config, secret, chatId } = await linkedChat(sb, receiver.url);
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'x' });

    const hooks = await receiver.waitFor(3);
    const recorded = await attemptsReach(sb, 3);
    await sleep(AFTER_ALL_RETRIES_MS);
    expect(receiver.received).toHaveLength(3);
    expect(recorded.map((a) => [a.attempt, a.status])).toEqual([
      [1, 500],
      [2, 500],
      [3, 204],
    ]);
    expect(new Set(recorded.map((a) => a.event_id)).size).toBe(1);
    expect(recorded.every((a) => a.config_id === config.id && a.error === null)).toBe(true);
    expect(new Set(hooks.map((h) => h.rawBody)).size).toBe(1);
    for (const hook of hooks) verified(hook, secret);
    // The nth retry waits at least retryBase * 2^n.
    expect(hooks[1]!.receivedAt - hooks[0]!.receivedAt).toBeGreaterThanOrEqual(2 * RETRY_BASE_MS);
    expect(hooks[2]!.receivedAt - hooks[1]!.receivedAt).toBeGreaterThanOrEqual(4 * RETRY_BASE_MS);
  });

  it('retries a 4xx and a 3xx too, without following the redirect', async () => {
    const receiver = await startReceiver((n) =>
      n === 2 ? { status: 302, headers: { location: '/redirected' } } : { status: n === 1 ? 404 : 200 },
    );
    const sb = await startTestSandbox({ retryBaseMs: RETRY_BASE_MS });
    const { chatId } = await linkedChat(sb, receiver.url);
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'x' });
    const recorded = await attemptsReach(sb, 3);
    expect(recorded.map((a) => a.status)).toEqual([404, 302, 200]);
    await sleep(AFTER_ALL_RETRIES_MS);
    expect(receiver.received.map((r) => r.path)).toEqual(['/hooks/reply', '/hooks/reply', '/hooks/reply']);
  });

  it('stops after max_retry_count retries: 1 + max_retry_count attempts in all', async () => {
    const receiver = await startReceiver(() => ({ status: 503 }));
    const sb = await startTestSandbox({ retryBaseMs: RETRY_BASE_MS });
    const { chatId } = await linkedChat(sb, receiver.url, { max_retry_count: 2 });
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'x' });
    await attemptsReach(sb, 3);
    await sleep(AFTER_ALL_RETRIES_MS);
    expect((await attempts(sb)).map((a) => [a.attempt, a.status])).toEqual([
      [1, 503],
      [2, 503],
      [3, 503],
    ]);
    expect(receiver.received).toHaveLength(3);
  });

  it('makes a single attempt when max_retry_count is 0', async () => {
    const receiver = await startReceiver(() => ({ status: 500 }));
    const sb = await startTestSandbox({ retryBaseMs: RETRY_BASE_MS });
    const { chatId } = await linkedChat(sb, receiver.url, { max_retry_count: 0 });
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'x' });
    await receiver.waitFor(1);
    await sleep(AFTER_ALL_RETRIES_MS);
    expect(await attempts(sb)).toHaveLength(1);
  });

  it('a receiver slower than webhookTimeoutMs is a failed attempt, then retried', async () => {
    const TIMEOUT_MS = 150;
    const receiver = await startReceiver((n) => (n === 1 ? { status: 200, delayMs: 2000 } : { status: 200 }));
    const sb = await startTestSandbox({ retryBaseMs: RETRY_BASE_MS, webhookTimeoutMs: TIMEOUT_MS });
    const { chatId } = await linkedChat(sb, receiver.url);
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'x' });
    const recorded = await attemptsReach(sb, 2);
    expect(recorded[0]).toMatchObject({ attempt: 1, status: null });
    expect(recorded[0]!.error).toMatch(/timed out/);
    expect(recorded[0]!.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(recorded[0]!.duration_ms).toBeLessThan(1500);
    expect(recorded[1]).toMatchObject({ attempt: 2, status: 200, error: null });
  });

  it('a network error (nothing listening) is a failed attempt with the error recorded', async () => {
    const receiver = await startReceiver();
    const deadUrl = receiver.url.replace(/:\d+\//, ':9/'); // the discard port: nothing listens there
    const sb = await startTestSandbox({ retryBaseMs: RETRY_BASE_MS });
    const { chatId } = await linkedChat(sb, deadUrl, { max_retry_count: 1 });
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'x' });
    const recorded = await attemptsReach(sb, 2);
    expect(recorded.map((a) => a.status)).toEqual([null, null]);
    expect(recorded[0]!.error).toMatch(/ECONNREFUSED/);
  });

  it('stops sending once the configuration is deleted', async () => {
    const receiver = await startReceiver(() => ({ status: 500 }));
    const sb = await startTestSandbox({ retryBaseMs: 50 });
    const { config, chatId } = await linkedChat(sb, receiver.url, { max_retry_count: 5 });
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'x' });
    await attemptsReach(sb, 1);
    expect((await sb.call('DELETE', `${sb.um}/${config.id}`)).status).toBe(204);
    await sleep(600); // five retries would all have happened by now (≈100+200+400 ms for the first three)
    expect(receiver.received).toHaveLength(1);
    // And a new agent reply in that chat sends nothing.
    await sb.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'y' });
    await sleep(100);
    expect(receiver.received).toHaveLength(1);
  });

  it('filters recorded attempts by config_id', async () => {
    const receiver = await startReceiver();
    const sb = await startTestSandbox();
    const a = await linkedChat(sb, receiver.url);
    const b = await sb.createConfig({ reply_webhook_url: receiver.url });
    const chatB = (await sb.postMessages(b.id, { messages: [visitorMessage('other')] })).body.chat_id;
    await sb.call('POST', `/_sandbox/chats/${a.chatId}/agent_messages`, { text: 'a' });
    await sb.call('POST', `/_sandbox/chats/${chatB}/agent_messages`, { text: 'b' });
    await attemptsReach(sb, 2);
    expect((await attempts(sb, b.id)).map((x) => x.config_id)).toEqual([b.id]);
  });
});
