/**
 * Agent replies, outward. With `outbound_url`, each event is POSTed as
 *
 *   {"type": "message_created", "thread_id": "<platform thread_id>", "thread_key": "<your thread_id>",
 *    "chat_id": "…", "message": {…}, "connector": "<name>"}
 *
 * (`reply_suggestion` instead of `message` for reply_suggestion_created),
 * signed with Standard Webhooks. The webhook-id is derived from the event, so
 * every retry carries the same one; the timestamp and signature are fresh per
 * attempt. Redirects are never followed, every answer's body is read to the
 * end (so the connection is reused), and `timeout_ms` bounds the whole attempt.
 *
 * An agent's files (`message.attachments`) go as the gateway's signed links
 * (attachment-links.ts). Without `outbound_url`, events are logged at info
 * and count as delivered.
 */
import type { Logger } from 'pino';
import { Agent, request, type Dispatcher } from 'undici';
import type { DeliverResult, Thread, WebhookEvent } from '../../src/connector/api.ts';
import { OutboundWebhookError, OutboundWebhookTimeoutError, errorForStatus } from './outbound-errors.ts';
import { signedHeaders, SigningKey, webhookIdOf } from './standard-webhooks.ts';

/** Bytes of an answer kept for an error message; the rest is read and dropped. */
const KEEP_BYTES = 2_048;
/** An answer longer than this is cut off (its connection closed) rather than read to the end. */
const DRAIN_LIMIT_BYTES = 1_048_576;
const USER_AGENT = 'threadgate-webhook-connector';

/** Where replies go: the signed webhook, or only the log. */
export interface ReplySink {
  /** `stop` aborts the attempt when the gateway shuts down. */
  deliver(event: WebhookEvent, thread: Thread | undefined, stop?: AbortSignal): Promise<DeliverResult>;
  /** For `health()`: no secrets, no URL path. */
  details(): Record<string, unknown>;
  close(): Promise<void>;
}

export interface WebhookSinkOptions {
  url: string;
  secret: string;
  timeoutMs: number;
  connectorName: string;
  logger: Logger;
  /** An agent's files as the gateway's own links (attachment-links.ts); absent: passed on as the platform sent them. */
  linkAttachments?: (attachments: readonly unknown[], stop?: AbortSignal) => Promise<unknown[]>;
}

/** The JSON body of one event. */
export function outboundPayload(event: WebhookEvent, thread: Thread | undefined, connector: string): Record<string, unknown> {
  const common = { type: event.event_type, thread_id: event.thread_id, thread_key: thread?.key ?? null, chat_id: event.chat_id };
  return event.event_type === 'message_created'
    ? { ...common, message: event.message, connector }
    : { ...common, reply_suggestion: event.reply_suggestion, connector };
}

export class WebhookReplySink implements ReplySink {
  readonly #url: string;
  readonly #host: string;
  readonly #key: SigningKey;
  readonly #timeoutMs: number;
  readonly #connectorName: string;
  readonly #logger: Logger;
  readonly #linkAttachments: WebhookSinkOptions['linkAttachments'];
  readonly #agent: Dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  #lastStatus: number | null = null;
  #lastError: string | null = null;
  #closing: Promise<void> | undefined;

  constructor(options: WebhookSinkOptions) {
    this.#url = options.url;
    this.#host = new URL(options.url).host;
    this.#key = new SigningKey(options.secret);
    this.#timeoutMs = options.timeoutMs;
    this.#connectorName = options.connectorName;
    this.#logger = options.logger;
    this.#linkAttachments = options.linkAttachments;
  }

  async deliver(event: WebhookEvent, thread: Thread | undefined, stop?: AbortSignal): Promise<DeliverResult> {
    const id = webhookIdOf(event);
    const files = event.event_type === 'message_created' ? event.message.attachments : [];
    const linked =
      event.event_type === 'message_created' && files.length > 0 && this.#linkAttachments
        ? { ...event, message: { ...event.message, attachments: await this.#linkAttachments(files, stop) } }
        : event;
    const body = JSON.stringify(outboundPayload(linked, thread, this.#connectorName));
    const started = performance.now();
    try {
      const status = await this.#attempt(id, body, stop);
      this.#lastError = null;
      this.#logger.debug({ webhook_id: id, status, durationMs: elapsed(started) }, 'outbound webhook delivered');
      return { externalId: id };
    } catch (err) {
      this.#lastError = err instanceof Error ? err.message : String(err);
      this.#logger.debug({ webhook_id: id, durationMs: elapsed(started), error: this.#lastError }, 'outbound webhook failed');
      throw err;
    }
  }

  details(): Record<string, unknown> {
    return { outbound_url: this.#host, last_delivery_status: this.#lastStatus, last_error: this.#lastError };
  }

  /** Waits for attempts in flight, then closes the connections; calling it again is harmless. */
  close(): Promise<void> {
    this.#closing ??= this.#agent.close();
    return this.#closing;
  }

  /** One POST; resolves with a 2xx status, throws the error any other outcome becomes. */
  async #attempt(id: string, body: string, stop: AbortSignal | undefined): Promise<number> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const signal = stop ? AbortSignal.any([timeout, stop]) : timeout;
    this.#lastStatus = null;
    let status: number;
    let retryAfter: string | string[] | undefined;
    let text: string;
    try {
      const res = await request(this.#url, {
        dispatcher: this.#agent,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...signedHeaders(this.#key, id, body) },
        body,
        signal,
        headersTimeout: this.#timeoutMs,
        bodyTimeout: this.#timeoutMs,
      });
      status = res.statusCode;
      this.#lastStatus = status;
      retryAfter = res.headers['retry-after'];
      text = await readAndDrain(res.body);
    } catch (err) {
      if (stop?.aborted) throw stop.reason;
      throw this.#transportError(err, timeout);
    }
    if (status >= 200 && status < 300) return status;
    throw errorForStatus(this.#host, status, retryAfter, text);
  }

  #transportError(err: unknown, signal: AbortSignal): Error {
    if (signal.aborted || isUndiciTimeout(err)) {
      const message = `outbound webhook to ${this.#host}: no complete answer within ${this.#timeoutMs} ms`;
      return new OutboundWebhookTimeoutError(message, this.#timeoutMs, { cause: err });
    }
    const reason = errorCode(err) ?? (err instanceof Error ? err.message : String(err));
    return new OutboundWebhookError(`outbound webhook to ${this.#host}: no answer (${reason})`, undefined, { cause: err });
  }
}

/** Replies go nowhere but the log: the local demo without a receiver. */
export class LogOnlyReplySink implements ReplySink {
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  async deliver(event: WebhookEvent): Promise<DeliverResult> {
    const text = event.event_type === 'message_created' ? event.message.message : event.reply_suggestion.suggestion;
    this.#logger.info(
      { event_type: event.event_type, thread_id: event.thread_id, chat_id: event.chat_id, text: text.slice(0, 500) },
      'agent reply (no outbound_url set, only logged)',
    );
    return {};
  }

  details(): Record<string, unknown> {
    return { outbound_url: null, last_delivery_status: null, last_error: null };
  }

  async close(): Promise<void> {}
}

/** Reads an answer to its end, keeping only its first bytes as text. */
async function readAndDrain(body: Dispatcher.ResponseData['body']): Promise<string> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (keptBytes < KEEP_BYTES) {
      kept.push(chunk.subarray(0, KEEP_BYTES - keptBytes));
      keptBytes += Math.min(chunk.length, KEEP_BYTES - keptBytes);
    }
    // Leaving the loop destroys the body: the connection is closed instead of reused.
    if (total > DRAIN_LIMIT_BYTES) break;
  }
  return Buffer.concat(kept).toString('utf8');
}

function isUndiciTimeout(err: unknown): boolean {
  const code = errorCode(err);
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT';
}

function errorCode(err: unknown): string | undefined {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
