/**
 * What an HTTP answer of the external system means for a delivery — the
 * table every connector that sends over HTTP needs, in one place
 * (re-exported by api.ts):
 *
 * | answer                                   | verdict       | `deliveryErrorFor` throws | the queue        |
 * |------------------------------------------|---------------|---------------------------|------------------|
 * | 2xx                                      | `ok`          | nothing (undefined)       | done             |
 * | 429 or 503 with Retry-After              | `retry-after` | RetryLaterError           | waits that long  |
 * | 3xx (never followed), 5xx, 408, 409,     | `retry`       | TransientDeliveryError    | backs off, again |
 * |   425, 429/503 without Retry-After       |               |                           |                  |
 * | any other 4xx                            | `permanent`   | PermanentDeliveryError    | dead-letters now |
 *
 * Messages name the host and the status with a short excerpt of the answer,
 * never the path (it may carry a token).
 */
import { parseRetryAfter } from '../platform/retry.ts';
import { PermanentDeliveryError, RetryLaterError, TransientDeliveryError } from './delivery-errors.ts';

/** Statuses a client may retry although they are 4xx (RFC 9110, RFC 8470). */
const RETRYABLE_4XX = new Set([408, 409, 425, 429]);

/** Characters of an answer kept in an error message. */
export const ANSWER_EXCERPT_CHARS = 200;

export type HttpVerdict =
  | { kind: 'ok' }
  | { kind: 'retry-after'; retryAfterMs: number }
  | { kind: 'retry'; redirect: boolean }
  | { kind: 'permanent' };

/** The headers of an answer as fetch (`Headers`) or undici's `request` (a record) give them. */
export type AnswerHeaders = Headers | Readonly<Record<string, string | string[] | undefined>>;

/** An HTTP answer: a fetch `Response`, undici's `request` result, or just its parts. */
export interface HttpAnswer {
  status: number;
  /** Where `Retry-After` is read from. */
  headers?: AnswerHeaders;
}

/** The verdict of a status and its `Retry-After` header (delta-seconds or an HTTP-date). */
export function judgeHttpAnswer(status: number, retryAfter?: string | string[]): HttpVerdict {
  if (status >= 200 && status < 300) return { kind: 'ok' };
  if (status === 429 || status === 503) {
    const retryAfterMs = parseRetryAfter(retryAfter);
    if (retryAfterMs !== undefined) return { kind: 'retry-after', retryAfterMs };
  }
  if (status >= 400 && status < 500 && !RETRYABLE_4XX.has(status)) return { kind: 'permanent' };
  return { kind: 'retry', redirect: status >= 300 && status < 400 };
}

/** The `Retry-After` of `headers`, whatever their shape. */
export function retryAfterOf(headers: AnswerHeaders | undefined): string | string[] | undefined {
  if (headers === undefined) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get('retry-after') ?? undefined;
  return (headers as Record<string, string | string[] | undefined>)['retry-after'];
}

export interface DeliveryErrorOptions {
  /** How the message names the other side: a host, `Zendesk at acme.zendesk.com`. Default `the external system`. */
  what?: string;
  /** The answer's body, of which a short excerpt goes into the message. */
  text?: string;
}

/**
 * The delivery error an answer is, by the table above; undefined for a 2xx. Throw what it returns from
 * `deliver`: `const err = deliveryErrorFor(res, { what: host, text: await res.text() }); if (err) throw err;`.
 */
export function deliveryErrorFor(answer: HttpAnswer, options: DeliveryErrorOptions = {}): PermanentDeliveryError | TransientDeliveryError | RetryLaterError | undefined {
  const verdict = judgeHttpAnswer(answer.status, retryAfterOf(answer.headers));
  if (verdict.kind === 'ok') return undefined;
  const excerpt = answerExcerpt(options.text ?? '');
  const message = `${options.what ?? 'the external system'} answered ${answer.status}${excerpt === '' ? '' : `: ${excerpt}`}`;
  switch (verdict.kind) {
    case 'retry-after':
      return new RetryLaterError(`${message} (retry after ${verdict.retryAfterMs} ms)`, verdict.retryAfterMs);
    case 'permanent':
      return new PermanentDeliveryError(message);
    case 'retry':
      return new TransientDeliveryError(verdict.redirect ? `${message} (redirect not followed)` : message);
  }
}

/** The start of an answer's text, white space collapsed, for an error message. */
export function answerExcerpt(text: string, chars = ANSWER_EXCERPT_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= chars ? flat : `${flat.slice(0, chars)}…`;
}
