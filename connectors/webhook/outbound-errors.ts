/**
 * What a failed outbound attempt becomes, which decides what the job queue
 * does next:
 *
 * | outcome                                  | thrown                          | queue            |
 * |------------------------------------------|---------------------------------|------------------|
 * | 429 or 503 with Retry-After              | RetryLaterError                 | waits that long  |
 * | 4xx but 408, 409, 425, 429               | OutboundWebhookRejectedError    | dead-letters now |
 * |   (a PermanentDeliveryError)             |                                 |                  |
 * | 3xx (never followed), 5xx, 408/409/425,  | OutboundWebhookError            | backs off, again |
 * |   429/503 without Retry-After, network   |                                 |                  |
 * | no complete answer within timeout_ms     | OutboundWebhookTimeoutError     | backs off, again |
 *
 * The table is the connector API's (`judgeHttpAnswer`, src/connector/http-answers.ts);
 * the errors are this connector's own, with its codes. Messages name the
 * receiver's host and the status, with a short excerpt of its answer; never
 * the path (it may carry a token) or the secret.
 */
import { answerExcerpt, judgeHttpAnswer, PermanentDeliveryError, RetryLaterError } from '../../src/connector/api.ts';

/** A failed attempt that may succeed later: 3xx, 5xx, a retryable 4xx, or a network failure. */
export class OutboundWebhookError extends Error {
  readonly code = 'TG_WEBHOOK_OUTBOUND_FAILED';
  /** The receiver's status; undefined when no answer came. */
  readonly status: number | undefined;

  constructor(message: string, status?: number, options?: ErrorOptions) {
    super(message, options);
    this.name = 'OutboundWebhookError';
    this.status = status;
  }
}

/** No complete answer (status line, headers and body) within `timeout_ms`. */
export class OutboundWebhookTimeoutError extends Error {
  readonly code = 'TG_WEBHOOK_OUTBOUND_TIMEOUT';
  readonly timeoutMs: number;

  constructor(message: string, timeoutMs: number, options?: ErrorOptions) {
    super(message, options);
    this.name = 'OutboundWebhookTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/** The receiver refused the event for good (a 4xx it will answer again). */
export class OutboundWebhookRejectedError extends PermanentDeliveryError {
  readonly status: number;
  /** The start of the receiver's answer, whitespace collapsed. */
  readonly excerpt: string;

  constructor(message: string, status: number, excerpt: string) {
    super(message);
    this.status = status;
    this.excerpt = excerpt;
  }
}

/** The error a non-2xx answer becomes; `host` names the receiver in the message. */
export function errorForStatus(host: string, status: number, retryAfter: string | string[] | undefined, text: string): Error {
  const excerpt = answerExcerpt(text);
  const said = excerpt === '' ? '' : `: ${excerpt}`;
  const message = `outbound webhook to ${host} answered ${status}${said}`;
  const verdict = judgeHttpAnswer(status, retryAfter);
  switch (verdict.kind) {
    case 'retry-after':
      return new RetryLaterError(`${message} (retry after ${verdict.retryAfterMs} ms)`, verdict.retryAfterMs);
    case 'permanent':
      return new OutboundWebhookRejectedError(message, status, excerpt);
    case 'retry':
      return new OutboundWebhookError(verdict.redirect ? `${message} (redirect not followed)` : message, status);
    case 'ok':
      throw new RangeError(`errorForStatus: ${status} is a success`);
  }
}
