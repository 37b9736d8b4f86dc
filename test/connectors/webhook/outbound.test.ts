/**
 * The webhook connector's deliver(), against a real HTTP receiver on port 0
 * that verifies each request with the `standardwebhooks` library: the payload,
 * the stable webhook-id, what each answer becomes for the job queue, timeouts,
 * redirects, draining, and health.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PermanentDeliveryError, RetryLaterError, type ConnectorInstance } from '../../../src/connector/api.ts';
import {
  OutboundWebhookError,
  OutboundWebhookRejectedError,
  OutboundWebhookTimeoutError,
} from '../../../connectors/webhook/index.ts';
import { failure } from '../../support/failure.ts';
import { closedPort } from '../../support/ports.ts';
import { CHAT_ID, createConnector, INBOUND_SECRET, messageCreated, OUTBOUND_SECRET, replySuggestionCreated } from './fixtures.ts';
import type { RecordingContext } from './recording-context.ts';
import { LEVEL } from './recording-context.ts';
import { startReceiver, type Receiver, type Script } from './receiver.ts';

/** Short enough to keep the suite fast, long enough for loopback. */
const TIMEOUT_MS = 300;
const SLOWER_THAN_TIMEOUT_MS = 3_000;
/** How late a timeout may fire on a busy machine. */
const TIMEOUT_SLACK_MS = 1_000;
/** Big enough that undici cannot have read it all with the headers. */
const LARGE_BODY = 'x'.repeat(256 * 1024);
/** stop() closes idle connections at once; an unread body would hold it until the attempt's timeout. */
const DRAIN_TEST_TIMEOUT_MS = 5_000;
const STOP_PROMPTLY_MS = 1_000;

let receiver: Receiver | undefined;
let instance: ConnectorInstance | undefined;

afterEach(async () => {
  await instance?.stop();
  await receiver?.close();
  instance = undefined;
  receiver = undefined;
});

async function setup(script: Script, settings: Record<string, unknown> = {}) {
  receiver = await startReceiver(OUTBOUND_SECRET, script);
  const created = await createConnector({
    inbound_secret: INBOUND_SECRET,
    outbound_url: receiver.url,
    outbound_secret: OUTBOUND_SECRET,
    timeout_ms: TIMEOUT_MS,
    ...settings,
  });
  instance = created.instance;
  return { receiver, instance: created.instance, ctx: created.ctx };
}

/** The context of a first attempt that nobody stops. */
const attempt = { signal: new AbortController().signal, attempt: 1 };

function thread(ctx: RecordingContext) {
  return ctx.threads.attach('order-42', []);
}

describe('a delivered event', () => {
  it('gives up at once when the gateway stops during an attempt, with the stop reason', async () => {
    const { instance } = await setup(() => ({ status: 200, delayMs: 2_000 }));
    const stop = new AbortController();
    const pending = instance.deliver(messageCreated(), undefined, { signal: stop.signal, attempt: 1 });
    setTimeout(() => stop.abort(new Error('the job runner is stopping')), 50);
    const started = Date.now();
    await expect(pending).rejects.toThrow('the job runner is stopping');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('POSTs a message_created event as signed JSON the library verifies, and returns the webhook-id', async () => {
    const { receiver, instance, ctx } = await setup(() => ({ status: 204 }));
    const event = messageCreated();
    const result = await instance.deliver(event, await thread(ctx), attempt);
    const [req] = receiver.requests;
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/hooks/threadgate?token=path-secret');
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.verified).toEqual({
      ok: true,
      payload: {
        type: 'message_created',
        thread_id: 'partner-hooks:order-42',
        thread_key: 'order-42',
        chat_id: CHAT_ID,
        message: event.event_type === 'message_created' ? event.message : undefined,
        connector: 'partner-hooks',
      },
    });
    expect(result).toEqual({ externalId: req?.headers['webhook-id'] });
    expect(req?.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{64}$/);
  });

  it('sends reply_suggestion instead of message for reply_suggestion_created, and thread_key null for an unknown thread', async () => {
    const { receiver, instance } = await setup(() => ({ status: 200 }));
    const event = replySuggestionCreated();
    await instance.deliver(event, undefined, attempt);
    const payload = receiver.requests[0]?.verified.ok ? (receiver.requests[0].verified.payload as Record<string, unknown>) : {};
    expect(payload).toMatchObject({ type: 'reply_suggestion_created', thread_key: null, connector: 'partner-hooks' });
    expect(payload.reply_suggestion).toEqual(event.event_type === 'reply_suggestion_created' ? event.reply_suggestion : null);
    expect(payload).not.toHaveProperty('message');
  });

  it('carries the same webhook-id when the same event is delivered again (a job retry)', async () => {
    // Guards against receivers getting a retried reply twice: they dedup on webhook-id.
    const { receiver, instance } = await setup(() => ({ status: 200 }));
    await instance.deliver(messageCreated(), undefined, attempt);
    await instance.deliver(messageCreated(), undefined, attempt);
    await instance.deliver(messageCreated('44444444-5555-4666-8777-888888888888'), undefined, attempt);
    const ids = receiver.requests.map((r) => r.headers['webhook-id']);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
    expect(receiver.requests.every((r) => r.verified.ok)).toBe(true);
  });

  it('reads every answer to its end, keeping its connection open for reuse', async () => {
    // Guards against leaked connections: an unread body holds its socket, and stop() would hang on it.
    const { receiver, instance } = await setup((_req, i) => ({ status: i === 1 ? 500 : 200, body: LARGE_BODY }), {
      timeout_ms: DRAIN_TEST_TIMEOUT_MS,
    });
    await instance.deliver(messageCreated(), undefined, attempt);
    await failure(instance.deliver(messageCreated(), undefined, attempt));
    await instance.deliver(messageCreated(), undefined, attempt);
    await Promise.all([0, 1, 2].map((i) => receiver.finished(i)));
    expect(receiver.connections.closed).toBe(0);
    const started = Date.now();
    await instance.stop();
    expect(Date.now() - started).toBeLessThan(STOP_PROMPTLY_MS);
  });
});

describe('what a failed attempt becomes', () => {
  it('500 → a retryable OutboundWebhookError, not a PermanentDeliveryError', async () => {
    const { instance } = await setup(() => ({ status: 500, body: 'database\n  is down' }));
    const err = await failure(instance.deliver(messageCreated(), undefined, attempt));
    expect(err).toBeInstanceOf(OutboundWebhookError);
    expect(err).not.toBeInstanceOf(PermanentDeliveryError);
    expect(err).toMatchObject({ code: 'TG_WEBHOOK_OUTBOUND_FAILED', status: 500 });
    expect(err.message).toContain('500: database is down');
    expect(err.message).not.toContain('path-secret');
  });

  it('404 → a PermanentDeliveryError with the status and an excerpt of the answer', async () => {
    const { instance } = await setup(() => ({ status: 404, body: `no such hook ${'.'.repeat(500)}` }));
    const err = await failure(instance.deliver(messageCreated(), undefined, attempt));
    expect(err).toBeInstanceOf(PermanentDeliveryError);
    expect(err).toBeInstanceOf(OutboundWebhookRejectedError);
    expect(err).toMatchObject({ code: 'TG_DELIVERY_PERMANENT', permanent: true, status: 404 });
    expect((err as OutboundWebhookRejectedError).excerpt).toMatch(/^no such hook \.+…$/);
    expect((err as OutboundWebhookRejectedError).excerpt.length).toBeLessThanOrEqual(201);
  });

  it.each([408, 409, 425])('%i → retryable, although it is a 4xx', async (status) => {
    const { instance } = await setup(() => ({ status }));
    const err = await failure(instance.deliver(messageCreated(), undefined, attempt));
    expect(err).toBeInstanceOf(OutboundWebhookError);
  });

  it.each([429, 503])('%i with Retry-After: 7 → RetryLaterError of 7000 ms', async (status) => {
    const { instance } = await setup(() => ({ status, headers: { 'retry-after': '7' } }));
    const err = await failure(instance.deliver(messageCreated(), undefined, attempt));
    expect(err).toBeInstanceOf(RetryLaterError);
    expect((err as RetryLaterError).retryAfterMs).toBe(7_000);
  });

  it('429 without Retry-After → retryable with the queue’s own backoff', async () => {
    const { instance } = await setup(() => ({ status: 429 }));
    const err = await failure(instance.deliver(messageCreated(), undefined, attempt));
    expect(err).toBeInstanceOf(OutboundWebhookError);
    expect(err).not.toHaveProperty('retryAfterMs');
  });

  it('302 is not followed and is retryable', async () => {
    // Guards against a redirect carrying the signed reply to another host.
    const { receiver, instance } = await setup((req) =>
      req.url.startsWith('/elsewhere') ? { status: 200 } : { status: 302, headers: { location: '/elsewhere' } },
    );
    const err = await failure(instance.deliver(messageCreated(), undefined, attempt));
    expect(err).toBeInstanceOf(OutboundWebhookError);
    expect(err).toMatchObject({ status: 302 });
    expect(err.message).toContain('redirect not followed');
    expect(receiver.requests).toHaveLength(1);
  });

  it('a receiver slower than timeout_ms → OutboundWebhookTimeoutError within about the timeout', async () => {
    const { instance } = await setup(() => ({ status: 200, delayMs: SLOWER_THAN_TIMEOUT_MS }));
    const started = Date.now();
    const err = await failure(instance.deliver(messageCreated(), undefined, attempt));
    expect(err).toBeInstanceOf(OutboundWebhookTimeoutError);
    expect(err).toMatchObject({ code: 'TG_WEBHOOK_OUTBOUND_TIMEOUT', timeoutMs: TIMEOUT_MS });
    expect(err).not.toBeInstanceOf(PermanentDeliveryError);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + TIMEOUT_SLACK_MS);
  });

  it('a body that stalls after the headers also times out', async () => {
    const { instance } = await setup(() => ({ status: 200, stallBodyMs: SLOWER_THAN_TIMEOUT_MS }));
    const started = Date.now();
    const err = await failure(instance.deliver(messageCreated(), undefined, attempt));
    expect(err).toBeInstanceOf(OutboundWebhookTimeoutError);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + TIMEOUT_SLACK_MS);
  });

  it('nothing listening → a retryable OutboundWebhookError naming the cause', async () => {
    const port = await closedPort();
    const created = await createConnector({
      inbound_secret: INBOUND_SECRET,
      outbound_url: `http://127.0.0.1:${port}/hook`,
      outbound_secret: OUTBOUND_SECRET,
    });
    instance = created.instance;
    const err = await failure(instance.deliver(messageCreated(), undefined, attempt));
    expect(err).toBeInstanceOf(OutboundWebhookError);
    expect(err.message).toContain('ECONNREFUSED');
  });
});

describe('health', () => {
  it('reports the receiver’s host only, the last status and the last error', async () => {
    const { receiver, instance } = await setup((_req, i) => ({ status: i === 0 ? 500 : 200 }));
    const host = new URL(receiver.url).host;
    expect(await instance.health?.()).toEqual({
      ok: true,
      details: { outbound_url: host, last_delivery_status: null, last_error: null },
    });
    await failure(instance.deliver(messageCreated(), undefined, attempt));
    expect(await instance.health?.()).toEqual({
      ok: true,
      details: { outbound_url: host, last_delivery_status: 500, last_error: expect.stringContaining('500') },
    });
    await instance.deliver(messageCreated(), undefined, attempt);
    expect((await instance.health?.())?.details).toEqual({ outbound_url: host, last_delivery_status: 200, last_error: null });
    expect(JSON.stringify(await instance.health?.())).not.toContain('path-secret');
  });
});

describe('without outbound_url', () => {
  it('logs the reply at info and resolves, sending nothing', async () => {
    const created = await createConnector({ allow_unsigned: true });
    instance = created.instance;
    await expect(instance.deliver(messageCreated(), undefined, attempt)).resolves.toEqual({});
    const line = created.ctx.logs.find((l) => l.msg.startsWith('agent reply'));
    expect(line).toMatchObject({ level: LEVEL.info, event_type: 'message_created', text: 'Your order ships today.' });
    expect((await instance.health?.())?.details).toEqual({ outbound_url: null, last_delivery_status: null, last_error: null });
  });
});
