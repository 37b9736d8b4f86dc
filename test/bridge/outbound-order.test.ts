/**
 * Per-thread order under parallel delivery: agent replies of many threads
 * come in at once, each thread's in the order they were written; the webhook
 * connector delivers them to a server that answers each after a random
 * delay. Every thread's replies reach the server in the order written, while
 * deliveries of different threads are in flight at the same time.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { signedHeaders } from '../../src/platform/signature.ts';
import { messageCreatedEnvelope } from '../support/events.ts';
import { startTestGateway } from '../support/gateway.ts';
import { until } from '../support/wait.ts';
import { OUTBOUND_SECRET } from '../connectors/webhook/fixtures.ts';
import { startReceiver, type ReceivedRequest } from '../connectors/webhook/receiver.ts';

const THREADS = 12;
const textOf = (request: ReceivedRequest) => (request.verified as { payload: { message: { message: string } } }).payload.message.message;
const REPLIES = 6;

describe('outbound order', () => {
  it("keeps each thread's replies in the order written while threads are delivered in parallel", { timeout: 60_000 }, async () => {
    let open = 0;
    let mostOpen = 0;
    /** Requests of one thread open at once at the server: never more than one. */
    const openOfThread = new Map<string, number>();
    let mostOpenOfOneThread = 0;
    const receiver = await startReceiver(OUTBOUND_SECRET, (request) => {
      const thread = textOf(request).split(' ')[0] as string;
      open += 1;
      openOfThread.set(thread, (openOfThread.get(thread) ?? 0) + 1);
      mostOpen = Math.max(mostOpen, open);
      mostOpenOfOneThread = Math.max(mostOpenOfOneThread, openOfThread.get(thread)!);
      const delayMs = Math.floor(Math.random() * 25);
      // Closed just before the answer goes out: the next reply of the thread may only start after it.
      setTimeout(() => {
        open -= 1;
        openOfThread.set(thread, openOfThread.get(thread)! - 1);
      }, Math.max(0, delayMs - 1));
      return { status: 200, delayMs };
    });
    onTestFinished(() => receiver.close());
    const tg = await startTestGateway({
      connectors: [{ name: 'desk', type: 'webhook', allow_unsigned: true, outbound_url: receiver.url, outbound_secret: OUTBOUND_SECRET }],
    });
    const registration = (await tg.gateway.store.read.registrations.get('desk'))!;

    // Each thread's replies are sent one after another (the platform's order); the threads at once.
    await Promise.all(
      Array.from({ length: THREADS }, async (_, t) => {
        for (let r = 0; r < REPLIES; r++) {
          const event = messageCreatedEnvelope({
            threadId: `desk:t${t}`,
            chatId: `00000000-0000-4000-8000-${String(t).padStart(12, '0')}`,
            configId: registration.configId,
            roomId: tg.sandbox.roomId,
            messagingChannel: 'webhook',
            text: `t${t} reply ${r}`,
          });
          const raw = JSON.stringify(event);
          const res = await tg.call('POST', '/webhooks/desk', raw, signedHeaders(registration.secret, raw));
          expect(res.status).toBe(200);
        }
      }),
    );

    await until(() => receiver.requests.length >= THREADS * REPLIES, 30_000, 'every reply delivered');
    const byThread = new Map<string, string[]>();
    for (const request of receiver.requests) {
      expect(request.verified.ok).toBe(true);
      const text = textOf(request);
      const thread = text.split(' ')[0] as string;
      byThread.set(thread, [...(byThread.get(thread) ?? []), text]);
    }
    expect(byThread.size).toBe(THREADS);
    for (const [thread, texts] of byThread) expect(texts).toEqual(Array.from({ length: REPLIES }, (_, r) => `${thread} reply ${r}`));
    expect(mostOpen).toBeGreaterThanOrEqual(2); // threads overlapped at the server
    expect(mostOpenOfOneThread).toBe(1); // a thread's next reply went out only after the one before was answered
  });
});
