/**
 * What one attempt of the platform HTTP client turned into: a non-2xx answer
 * as a PlatformHttpError (detail, field errors, Retry-After), an undici or
 * socket failure as a timeout or network error, whether to try again; and the
 * small helpers of a request (query string, body parsing, caller headers).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { describeErrorBody, keepBody } from './error-body.ts';
import {
  PlatformHttpError,
  PlatformNetworkError,
  PlatformTimeoutError,
  isRetryable,
  type PlatformCall,
} from './errors.ts';
import { parseRetryAfter, type RetryVerdict } from './retry.ts';

const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'UND_ERR_SOCKET',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export function classify(err: unknown): RetryVerdict {
  if (!isRetryable(err)) return { retry: false };
  return { retry: true, retryAfterMs: err instanceof PlatformHttpError ? err.retryAfterMs : undefined };
}

/**
 * For a request that must not happen twice (a POST that creates something):
 * retried only when the platform cannot have acted on it — the connection was
 * refused, or the answer was 429 or 503 (refused before processing). After a
 * timeout, a reset or another 5xx it may have been done, so the error is
 * thrown to the caller, who knows whether repeating is safe.
 */
export function classifyUnsafe(err: unknown): RetryVerdict {
  if (err instanceof PlatformNetworkError && err.causeCode === 'ECONNREFUSED') return { retry: true };
  if (err instanceof PlatformHttpError && (err.status === 429 || err.status === 503)) return { retry: true, retryAfterMs: err.retryAfterMs };
  return { retry: false };
}

export function httpError(
  call: PlatformCall,
  status: number,
  headers: IncomingHttpHeaders,
  text: string,
  parsed: unknown,
): PlatformHttpError {
  const summary = describeErrorBody(status, parsed);
  if (status >= 300 && status < 400) {
    const location = typeof headers.location === 'string' ? ` to ${headers.location}` : '';
    summary.detail = `redirect${location} not followed`;
  }
  return new PlatformHttpError({
    ...call,
    status,
    detail: summary.detail,
    fieldErrors: summary.fieldErrors,
    body: keepBody(text, parsed),
    retryAfterMs: parseRetryAfter(headers['retry-after']),
  });
}

/** Errors from undici or the socket: a timeout, a network failure, or the caller's abort. */
export function mapTransportError(call: PlatformCall, err: unknown, timeoutMs: number, callerSignal: AbortSignal | undefined): unknown {
  if (callerSignal?.aborted) return callerSignal.reason;
  const code = codeOf(err);
  if (code !== undefined && TIMEOUT_CODES.has(code)) return new PlatformTimeoutError(call, timeoutMs, { cause: err });
  // Invalid arguments are our bug, not the network's: let them surface as they are.
  if (code === undefined || code.startsWith('UND_ERR_INVALID') || code.startsWith('ERR_INVALID')) return err;
  return new PlatformNetworkError(call, err, TRANSIENT_CODES.has(code));
}

/** The error's code; for an AggregateError (one error per address tried), the first inner code. */
export function codeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  if (err instanceof AggregateError) return err.errors.map(codeOf).find((c) => c !== undefined);
  return undefined;
}

export function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function queryString(query: Record<string, string | number | readonly string[] | undefined> | undefined): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) params.append(key, String(v));
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The caller's extra headers, names lower-cased, without those the client owns. */
export function callerHeaders(headers: Record<string, string> | undefined, ownAuthorization: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const key = name.toLowerCase();
    if ((key !== 'authorization' || ownAuthorization) && key !== 'host' && key !== 'content-length') out[key] = value;
  }
  return out;
}
