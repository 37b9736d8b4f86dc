/**
 * Outages longer than the old attempt budget: a helpdesk (a real HTTP sink
 * behind the webhook connector) or the platform (behind an outage proxy)
 * down for many tries. The retry budget is a duration (`jobs.retry_for`);
 * these tests shrink the backoff and the budget so that minutes and days
 * become milliseconds and seconds — the same code paths, a faster clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startGatewayBehindProxy, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { until } from '../support/wait.ts';
import { OUTBOUND_SECRET } from '../connectors/webhook/fixtures.ts';
import { startReceiver, type Receiver } from '../connectors/webhook/receiver.ts';

/** The old default: 8 tries, then dead — about two minutes of 1 s doubling. */
const OLD_MAX_ATTEMPTS = 8;
/** 1 s → 10 ms, 15 min → 50 ms: an outage of a dozen tries passes in about half a second. */
const BACKOFF_MAX_MS = 50;
const FAST_BACKOFF = { backoff_first: '10ms', backoff_max: `${BACKOFF_MAX_MS}ms` };
const RETRY_FOR_MS = 1_000;
/** How late a due job may start on a busy machine (timers, the event loop). */
const SCHEDULING_SLACK_MS = 500;
const WAIT_MS = 10_000;

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

const helpdesk = (outboundUrl: string) => ({ name: 'helpdesk', type: 'webhook', allow_unsigned: true, outbound_url: outboundUrl, outbound_secret: OUTBOUND_SECRET });

/** A customer message in, so the platform has a chat whose agent can reply; returns the chat id. */
async function openChat(tg: TestGateway): Promise<string> {
  const res = await tg.call('POST', '/connectors/helpdesk/messages', { thread_id: 'case-1', messages: [{ message_id: 'in-1', sender_id: 'ann@example.com', body: 'Printer on fire' }] });
  expect(res.status).toBe(202);
  await until(async () => (await tg.gateway.store.read.threads.byKey('helpdesk', 'case-1'))?.chatId != null, WAIT_MS, 'the chat');
  return (await tg.gateway.store.read.threads.byKey('helpdesk', 'case-1'))!.chatId!;
}

const deliveryJob = async (tg: TestGateway) =>
  (await tg.gateway.store.read.sql.get(`select id, status, attempts, last_error, created_at from jobs where kind = 'connector.deliver'`)) as {
    id: number; status: string; attempts: number; last_error: string | null; created_at: number;
  };

describe('a helpdesk outage', () => {
  // Guards against agent replies dead-lettered after ~2 minutes (8 tries) of a helpdesk or SMTP outage.
  it('does not dead-letter a reply however many tries the outage takes: it is delivered once the sink is back', async () => {
    const downTries = OLD_MAX_ATTEMPTS + 4;
    receiver = await startReceiver(OUTBOUND_SECRET, (_req, i) => (i < downTries ? { status: 503, body: 'down for maintenance' } : { status: 200 }));
    const tg = await startTestGateway({ connectors: [helpdesk(receiver.url)], settings: { jobs: FAST_BACKOFF } });
    const chatId = await openChat(tg);
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'We are on it' });

    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('helpdesk')).delivered === 1, WAIT_MS, 'the reply delivered after the outage');
    expect(receiver.requests).toHaveLength(downTries + 1);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(receiver.requests.at(-1)!.verified).toMatchObject({ ok: true, payload: expect.objectContaining({ message: expect.objectContaining({ message: 'We are on it' }) }) });
    // Every try was an attempt of one job, which was deleted once done (docs/decisions/done-deliveries-forgotten.md).
    const attempts = await tg.gateway.store.read.attempts.ofDelivery((await tg.gateway.store.read.deliveries.byId(1))!.id);
    expect(attempts.map((a) => a.outcome)).toEqual([...Array<string>(downTries).fill('failed'), 'delivered']);
    expect(attempts.map((a) => a.attempt)).toEqual(Array.from({ length: downTries + 1 }, (_, i) => i + 1));
    expect(new Set(attempts.map((a) => a.jobId)).size).toBe(1);
    await until(async () => (await deliveryJob(tg)) === undefined, WAIT_MS, 'the done job deleted');
  });

  it('dead-letters a reply whose sink stays down past jobs.retry_for, with the last error, at the deadline', async () => {
    receiver = await startReceiver(OUTBOUND_SECRET, (_req, i) => ({ status: 503, body: `still down (${i + 1})` }));
    const tg = await startTestGateway({ connectors: [helpdesk(receiver.url)], settings: { jobs: { ...FAST_BACKOFF, retry_for: `${RETRY_FOR_MS}ms` } } });
    const chatId = await openChat(tg);
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'We are on it' });

    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('helpdesk')).dead === 1, WAIT_MS, 'the reply dead-lettered');
    const job = (await deliveryJob(tg));
    expect(job.status).toBe('dead');
    expect(job.attempts).toBe(receiver.requests.length);
    expect(job.attempts).toBeGreaterThan(OLD_MAX_ATTEMPTS);
    expect(job.last_error).toContain('503');
    const delivery = (await tg.gateway.store.read.deliveries.byId(1))!;
    expect(delivery.error).toContain('503');
    const attempts = (await tg.gateway.store.read.attempts.ofDelivery(delivery.id));
    expect(attempts.map((a) => a.outcome)).toEqual([...Array<string>(attempts.length - 1).fill('failed'), 'dead']);
    // The last try starts by the deadline (queued + retry_for), less than one capped backoff before it; then nothing more.
    const lastStart = attempts.at(-1)!.startedAt - job.created_at;
    expect(lastStart).toBeGreaterThan(RETRY_FOR_MS - BACKOFF_MAX_MS);
    expect(lastStart).toBeLessThan(RETRY_FOR_MS + SCHEDULING_SLACK_MS);
  });
});

describe('a platform outage', () => {
  it('dead-letters a message still unposted at jobs.retry_for, job and message alike, with the platform’s last answer', async () => {
    const { proxy, ...tg } = await startGatewayBehindProxy({ jobs: { ...FAST_BACKOFF, retry_for: `${RETRY_FOR_MS}ms` } });
    proxy.mode = '503';
    const submitted = await tg.call('POST', '/connectors/desk/submit', { threadKey: 'T1', messageId: 'm-1', senderId: 'ann@example.com', body: 'hello?' });
    expect(submitted.status).toBe(202);

    await until(async () => (await tg.gateway.store.read.inbound.byId(1))?.status === 'dead', WAIT_MS, 'the message dead-lettered');
    const job = (await tg.gateway.store.read.sql.get(`select status, attempts, last_error from jobs where kind = 'platform.post_messages'`)) as { status: string; attempts: number; last_error: string };
    expect(job.status).toBe('dead');
    expect(job.attempts).toBeGreaterThan(OLD_MAX_ATTEMPTS);
    expect(job.last_error).toContain('503');
    expect((await tg.gateway.store.read.inbound.byId(1))!.lastError).toContain('503');
    expect((await tg.gateway.store.read.attempts.ofInbound(1)).at(-1)).toMatchObject({ outcome: 'dead', status: 503 });
  });
});
