/**
 * Delivers webhook events to a configuration's reply_webhook_url the way spec 03
 * describes: POST, application/json, signed, a timeout per attempt, success on
 * any 2xx, and on 4xx, 5xx or a network error a retry after
 * `retryBase * 2^n + random(0..retryBase)` for n = 1..max_retry_count.
 *
 * Each attempt reads the configuration anew: a deleted configuration stops the
 * delivery, and the URL, secret and retry count in force are the current ones.
 * The body bytes never change; each attempt is signed with a fresh timestamp.
 * Redirects are not followed (a 3xx is a failed attempt), and a response body
 * is always drained. Attempt times are wall-clock, not the sandbox clock.
 */
import { Agent, request } from 'undici';
import type { Logger } from 'pino';
import { signedHeaders, type SignaturePayload } from '../platform/signature.ts';
import type { WebhookEvent } from '../platform/schemas/unified-messaging.ts';
import type { ChannelConfigurationRecord } from './model.ts';
import type { SandboxState } from './state.ts';

export interface WebhookDispatcherOptions {
  state: SandboxState;
  /** The retry unit: the nth retry waits retryBaseMs * 2^n plus 0..retryBaseMs of jitter. */
  retryBaseMs: number;
  timeoutMs: number;
  signaturePayload: SignaturePayload;
  logger: Logger | undefined;
}

interface Delivery {
  configId: string;
  eventType: WebhookEvent['event_type'];
  eventId: string;
  body: string;
}

/** Drained response bodies are read up to this size, then the connection is dropped. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

export class WebhookDispatcher {
  private readonly options: WebhookDispatcherOptions;
  private readonly agent: Agent;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Map<AbortController, Promise<void>>();
  private closed = false;

  constructor(options: WebhookDispatcherOptions) {
    this.options = options;
    this.agent = new Agent({ connect: { timeout: options.timeoutMs } });
  }

  /** Starts delivering `event`; attempts are recorded in the state as they finish. */
  dispatch(configId: string, event: WebhookEvent): void {
    const eventId = event.event_type === 'message_created' ? event.message.id : event.reply_suggestion.id;
    this.attempt({ configId, eventType: event.event_type, eventId, body: JSON.stringify(event) }, 1);
  }

  /** Cancels pending retries, aborts requests in flight and waits for them to settle. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const controller of this.inFlight.keys()) controller.abort();
    await Promise.allSettled(this.inFlight.values());
    await this.agent.destroy();
  }

  private attempt(delivery: Delivery, attempt: number): void {
    if (this.closed) return;
    const config = this.options.state.configurations.get(delivery.configId);
    if (!config) return; // the configuration was deleted: stop sending
    const controller = new AbortController();
    const sent = this.send(config, delivery, attempt, controller).finally(() => this.inFlight.delete(controller));
    this.inFlight.set(controller, sent);
  }

  private async send(
    config: ChannelConfigurationRecord,
    delivery: Delivery,
    attempt: number,
    controller: AbortController,
  ): Promise<void> {
    const { timeoutMs, signaturePayload, logger } = this.options;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([controller.signal, timeout]);
    const startedAt = Date.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      const response = await request(config.replyWebhookUrl, {
        method: 'POST',
        dispatcher: this.agent,
        headers: {
          'content-type': 'application/json',
          ...signedHeaders(config.webhookSecretKey, delivery.body, signaturePayload),
        },
        body: delivery.body,
        signal,
      });
      status = response.statusCode;
      await response.body.dump({ limit: DRAIN_LIMIT_BYTES, signal }).catch(() => undefined);
    } catch (err) {
      if (timeout.aborted) error = `timed out after ${timeoutMs} ms`;
      else if (controller.signal.aborted) error = 'aborted: the sandbox is closing';
      else error = err instanceof Error ? err.message || err.name : String(err);
    }
    const durationMs = Date.now() - startedAt;
    this.options.state.webhookAttempts.push({
      config_id: config.id,
      event_type: delivery.eventType,
      event_id: delivery.eventId,
      attempt,
      url: config.replyWebhookUrl,
      status,
      error,
      started_at: new Date(startedAt).toISOString(),
      duration_ms: durationMs,
    });
    const delivered = status !== null && status >= 200 && status < 300;
    logger?.info({ configId: config.id, eventType: delivery.eventType, attempt, status, error }, 'sandbox webhook attempt');
    if (!delivered && attempt <= config.maxRetryCount) this.scheduleRetry(delivery, attempt);
  }

  /** After the nth failed attempt, the nth retry: retryBase * 2^n + random(0..retryBase). */
  private scheduleRetry(delivery: Delivery, failedAttempt: number): void {
    if (this.closed) return;
    const base = this.options.retryBaseMs;
    const delay = base * 2 ** failedAttempt + Math.random() * base;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.attempt(delivery, failedAttempt + 1);
    }, delay);
    this.timers.add(timer);
  }
}
