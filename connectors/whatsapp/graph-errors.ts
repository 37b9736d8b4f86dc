/**
 * The Graph API's refusals as the connector's errors, each with a stable
 * code. Graph answers an error as
 *
 *   {"error": {"message": "(#131047) Re-engagement message", "type": "OAuthException", "code": 131047,
 *              "error_subcode": 2494010, "error_data": {"messaging_product": "whatsapp", "details": "…"},
 *              "fbtrace_id": "A…"}}
 *
 * and what it means is in `code` more than in the HTTP status (most codes
 * come with 400): the table (https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes) —
 *
 *   131047 Re-engagement message            → WhatsAppWindowClosedError (permanent: dead-letter, or the template)
 *   4, 80007, 130429, 131056 (rate limits)  → WhatsAppRateLimitedError (RetryLaterError: Retry-After, else our wait)
 *   190, 0, 102, 104, HTTP 401 (the token)  → WhatsAppTokenRefusedError (permanent)
 *   1, 2, 131000, 131016, 5xx, no answer    → WhatsAppUnavailableError (transient: backoff)
 *   anything else 4xx                       → WhatsAppRefusedError (permanent), or as judgeHttpAnswer says
 *
 * No Retry-After is promised for the rate limits, so each code has a wait of
 * our own (docs/decisions/whatsapp-connector.md). Messages carry Graph's
 * words and its trace id, never a token.
 */
import { answerExcerpt, judgeHttpAnswer, parseRetryAfter, PermanentDeliveryError, RetryLaterError, TransientDeliveryError } from '../../src/connector/api.ts';

/** How long to wait after each rate-limit code when no Retry-After came (ms). */
export const RATE_LIMIT_WAITS: Readonly<Record<number, number>> = {
  130429: 2_000, // the number's throughput (messages a second): a moment
  131056: 6_000, // one customer's pair rate: WhatsApp allows about one message in 6 s to one customer
  4: 60_000, // the app's call count (an hourly window)
  80007: 60_000, // the WhatsApp Business account's call count (an hourly window)
};
/** A 429 without a known code and without Retry-After. */
const DEFAULT_WAIT_MS = 60_000;
const TOKEN_CODES = new Set([0, 102, 104, 190]);
const PASSING_CODES = new Set([1, 2, 131000, 131016]);

/** Graph's error object, as far as it was given. */
export interface GraphErrorFields {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  fbtrace_id?: string;
  error_data?: { details?: string };
}

/** WhatsApp refused the request for good: its HTTP status and Graph's code. */
export class WhatsAppRefusedError extends PermanentDeliveryError {
  override readonly code: string = 'TG_WHATSAPP_REFUSED';
  readonly status: number | undefined;
  readonly graphCode: number | undefined;

  constructor(message: string, status?: number, graphCode?: number) {
    super(message);
    this.status = status;
    this.graphCode = graphCode;
  }
}

/** 131047: more than 24 hours passed since the customer last wrote; only a template may go out. */
export class WhatsAppWindowClosedError extends WhatsAppRefusedError {
  override readonly code: string = 'TG_WHATSAPP_WINDOW_CLOSED';
}

/** The access token was refused (expired, revoked, or without the permission). */
export class WhatsAppTokenRefusedError extends WhatsAppRefusedError {
  override readonly code: string = 'TG_WHATSAPP_TOKEN_REFUSED';
}

/** A rate limit of WhatsApp: retried no sooner than `retryAfterMs`. */
export class WhatsAppRateLimitedError extends RetryLaterError {
  override readonly code: string = 'TG_WHATSAPP_RATE_LIMITED';
}

/** WhatsApp did not answer, or answered that it could not now: retried with backoff. */
export class WhatsAppUnavailableError extends TransientDeliveryError {
  override readonly code: string = 'TG_WHATSAPP_UNAVAILABLE';
  /** From a Retry-After header, when one came. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, retryAfterMs?: number, options?: ErrorOptions) {
    super(message, options);
    this.retryAfterMs = retryAfterMs;
  }
}

/** WhatsApp answered with a body the connector cannot read (a 2xx without the id it promises). */
export class WhatsAppAnswerMalformedError extends PermanentDeliveryError {
  override readonly code: string = 'TG_WHATSAPP_ANSWER_MALFORMED';
}

/** Graph's error object in `text`, if the body is one. */
export function graphErrorOf(text: string): GraphErrorFields | undefined {
  try {
    const error = (JSON.parse(text) as { error?: unknown } | null)?.error;
    return error !== null && typeof error === 'object' ? (error as GraphErrorFields) : undefined;
  } catch {
    return undefined;
  }
}

/** Graph's words: its message, the details, the code and the trace id. */
export function graphWords(error: GraphErrorFields | undefined, text: string): string {
  if (error === undefined) return answerExcerpt(text) || 'no error body';
  const details = typeof error.error_data?.details === 'string' && error.error_data.details !== error.message ? ` — ${answerExcerpt(error.error_data.details)}` : '';
  const trace = typeof error.fbtrace_id === 'string' ? `, fbtrace_id ${error.fbtrace_id}` : '';
  return `${answerExcerpt(String(error.message ?? 'no message'))}${details} (code ${error.code ?? '?'}${error.error_subcode ? `/${error.error_subcode}` : ''}${trace})`;
}

/** The error an answer other than 2xx is, by Graph's code first and the HTTP status second. */
export function graphFailure(status: number, text: string, retryAfter: string | null, what: string): Error {
  const error = graphErrorOf(text);
  const code = typeof error?.code === 'number' ? error.code : undefined;
  const message = `WhatsApp answered ${status} to ${what}: ${graphWords(error, text)}`;
  const retryAfterMs = parseRetryAfter(retryAfter ?? undefined);
  if (code === 131047) return new WhatsAppWindowClosedError(message, status, code);
  if (code !== undefined && code in RATE_LIMIT_WAITS) return new WhatsAppRateLimitedError(message, retryAfterMs ?? RATE_LIMIT_WAITS[code]!);
  if (status === 401 || (code !== undefined && TOKEN_CODES.has(code))) {
    return new WhatsAppTokenRefusedError(`${message}; renew access_token (a system user's token with whatsapp_business_messaging)`, status, code);
  }
  if (status === 429) return new WhatsAppRateLimitedError(message, retryAfterMs ?? DEFAULT_WAIT_MS);
  if (status >= 500 || (code !== undefined && PASSING_CODES.has(code))) return new WhatsAppUnavailableError(message, retryAfterMs);
  const verdict = judgeHttpAnswer(status, retryAfter ?? undefined);
  if (verdict.kind === 'retry-after') return new WhatsAppRateLimitedError(message, verdict.retryAfterMs);
  if (verdict.kind === 'retry') return new WhatsAppUnavailableError(message, retryAfterMs);
  return new WhatsAppRefusedError(message, status, code);
}
