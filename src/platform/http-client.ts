/**
 * The transport to the platform's API: one undici Pool per base URL
 * (keep-alive), the Authorization header, JSON in and out, a timeout per
 * attempt covering status line, headers and body, no redirects followed, and
 * retry composed around each attempt (`retry.ts`).
 *
 * Every non-2xx answer, timeout and network failure becomes one of the
 * platform errors in `errors.ts`. Logs carry method, path, status, duration
 * and attempt; never the Authorization header or a body.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { Pool, type Dispatcher } from 'undici';
import { z } from 'zod';
import { describeErrorBody, keepBody } from './error-body.ts';
import {
  PlatformClientOptionsError,
  PlatformHttpError,
  PlatformNetworkError,
  PlatformResponseError,
  PlatformTimeoutError,
  isRetryable,
  zodIssues,
  type PlatformCall,
} from './errors.ts';
import { DEFAULT_RETRY_POLICY, parseRetryAfter, withRetry, type RetryPolicy, type RetryVerdict } from './retry.ts';

export type TokenType = 'Token' | 'Bearer';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export const DEFAULT_TIMEOUT_MS = 10_000;
const USER_AGENT = 'threadgate';

export interface PlatformHttpOptions {
  /** The platform's API address, e.g. `https://chat.example.com`; a path prefix is kept. */
  baseUrl: string;
  token: string;
  tokenType?: TokenType;
  /** Per attempt, for status line, headers and body together. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  logger?: Logger;
  /** Told about every attempt (for metrics): method, status when one came, duration, error code. */
  onAttempt?: (attempt: PlatformAttemptInfo) => void;
  /** Used instead of an own Pool; not closed by `close()`. */
  dispatcher?: Dispatcher;
}

export interface PlatformAttemptInfo {
  method: HttpMethod;
  status: number | undefined;
  durationMs: number;
  /** The error code (TG_PLATFORM_*), or undefined on success. */
  error: string | undefined;
}

/** Per-call overrides; the job queue calls with `retry: { attempts: 1 }`. */
export interface CallOptions {
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Aborts the call, waits between attempts included; its reason is thrown. */
  signal?: AbortSignal;
}

export interface PlatformRequest extends CallOptions {
  method: HttpMethod;
  /** Relative to the base URL, starting with `/`, segments already encoded. */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** Sent as JSON when defined. */
  body?: unknown;
}

export interface PlatformResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** Parsed JSON; the text when it is not JSON; undefined when empty. */
  body: unknown;
  /** Tries it took, the first included. */
  attempts: number;
}

const Options = z.strictObject({
  baseUrl: z
    .url({ protocol: /^https?$/ })
    .refine((u) => !/^[a-z]+:\/\/[^/]*@/i.test(u), { error: 'must not carry credentials' })
    .refine((u) => !u.includes('?') && !u.includes('#'), { error: 'must not carry a query or fragment' }),
  token: z.string().regex(/^[\x21-\x7e]+$/, { error: 'must be printable ASCII without spaces' }),
  tokenType: z.enum(['Token', 'Bearer']).default('Token'),
  timeoutMs: z.number().int().min(1).max(600_000).default(DEFAULT_TIMEOUT_MS),
  retry: z
    .strictObject({
      attempts: z.number().int().min(1).max(20),
      baseMs: z.number().int().min(0),
      maxMs: z.number().int().min(0),
    })
    .partial()
    .default({}),
  logger: z.custom<Logger>().optional(),
  onAttempt: z.custom<(attempt: PlatformAttemptInfo) => void>((v) => typeof v === 'function').optional(),
  dispatcher: z.custom<Dispatcher>().optional(),
});

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

export class PlatformHttpClient {
  readonly #origin: string;
  readonly #basePath: string;
  readonly #authorization: string;
  readonly #timeoutMs: number;
  readonly #retry: Readonly<RetryPolicy>;
  readonly #logger: Logger | undefined;
  readonly #onAttempt: ((attempt: PlatformAttemptInfo) => void) | undefined;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;

  constructor(options: PlatformHttpOptions) {
    const parsed = Options.safeParse(options);
    if (!parsed.success) {
      const problems = zodIssues(parsed.error).map((i) => `${i.path}: ${i.message}`);
      throw new PlatformClientOptionsError(`platform client options invalid: ${problems.join('; ')}`);
    }
    const o = parsed.data;
    const url = new URL(o.baseUrl);
    this.#origin = url.origin;
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.#authorization = `${o.tokenType} ${o.token}`;
    this.#timeoutMs = o.timeoutMs;
    this.#retry = Object.freeze({ ...DEFAULT_RETRY_POLICY, ...o.retry });
    this.#logger = o.logger;
    this.#onAttempt = o.onAttempt;
    this.#ownsDispatcher = o.dispatcher === undefined;
    this.#dispatcher = o.dispatcher ?? new Pool(this.#origin, { connections: 16, keepAliveTimeout: 10_000 });
  }

  /** The base URL without a trailing slash; no token in it. */
  get baseUrl(): string {
    return this.#origin + this.#basePath;
  }

  /**
   * A pagination link as a path for `request`. Only the path and query are
   * kept, so the token is never sent to another origin a link might name.
   */
  pathOfLink(link: string): string {
    const url = new URL(link, `${this.baseUrl}/`);
    const path = url.pathname.startsWith(`${this.#basePath}/`) ? url.pathname.slice(this.#basePath.length) : url.pathname;
    return path + url.search;
  }

  /** Sends with retry; resolves on 2xx, throws a platform error otherwise. */
  async request(req: PlatformRequest): Promise<PlatformResponse> {
    const fullPath = this.#basePath + req.path + queryString(req.query);
    const policy: RetryPolicy = { ...this.#retry, ...req.retry };
    const timeoutMs = req.timeoutMs ?? this.#timeoutMs;
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    return withRetry((attempt) => this.#attempt(req.method, fullPath, body, timeoutMs, attempt, req.signal), {
      policy,
      classify,
      signal: req.signal,
    });
  }

  /** `request`, then the 2xx body parsed with a (loose) response schema. */
  async requestJson<S extends z.ZodType>(req: PlatformRequest, schema: S): Promise<z.output<S>> {
    const res = await this.request(req);
    const parsed = schema.safeParse(res.body);
    if (parsed.success) return parsed.data;
    const call: PlatformCall = { method: req.method, path: this.#basePath + req.path + queryString(req.query), attempts: res.attempts };
    throw new PlatformResponseError(call, res.status, zodIssues(parsed.error), res.body);
  }

  /** Closes the own Pool; an injected dispatcher belongs to its owner. */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  async #attempt(
    method: HttpMethod,
    path: string,
    body: string | undefined,
    timeoutMs: number,
    attempt: number,
    callerSignal: AbortSignal | undefined,
  ): Promise<PlatformResponse> {
    const call: PlatformCall = { method, path, attempts: attempt };
    const deadline = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      deadline.abort();
    }, timeoutMs);
    const signal = callerSignal ? AbortSignal.any([deadline.signal, callerSignal]) : deadline.signal;
    const started = performance.now();
    let status: number | undefined;
    let failure: string | undefined;
    try {
      const res = await this.#dispatcher.request({
        origin: this.#origin,
        path,
        method,
        headers: {
          authorization: this.#authorization,
          accept: 'application/json',
          'user-agent': USER_AGENT,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = res.statusCode;
      const text = await res.body.text();
      const parsed = parseBody(text);
      if (status >= 200 && status < 300) return { status, headers: res.headers, body: parsed, attempts: attempt };
      const error = httpError(call, status, res.headers, text, parsed);
      failure = error.code;
      throw error;
    } catch (err) {
      if (err instanceof PlatformHttpError) throw err;
      const mapped = timedOut ? new PlatformTimeoutError(call, timeoutMs, { cause: err }) : mapTransportError(call, err, timeoutMs, callerSignal);
      failure = codeOf(mapped) ?? 'aborted';
      throw mapped;
    } finally {
      clearTimeout(timer);
      const elapsed = performance.now() - started;
      const durationMs = Math.round(elapsed);
      this.#logger?.debug({ method, path, status, durationMs, attempt, error: failure }, 'platform request');
      this.#onAttempt?.({ method, status, durationMs: elapsed, error: failure });
    }
  }
}

function classify(err: unknown): RetryVerdict {
  if (!isRetryable(err)) return { retry: false };
  return { retry: true, retryAfterMs: err instanceof PlatformHttpError ? err.retryAfterMs : undefined };
}

function httpError(
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
function mapTransportError(call: PlatformCall, err: unknown, timeoutMs: number, callerSignal: AbortSignal | undefined): unknown {
  if (callerSignal?.aborted) return callerSignal.reason;
  const code = codeOf(err);
  if (code !== undefined && TIMEOUT_CODES.has(code)) return new PlatformTimeoutError(call, timeoutMs, { cause: err });
  // Invalid arguments are our bug, not the network's: let them surface as they are.
  if (code === undefined || code.startsWith('UND_ERR_INVALID') || code.startsWith('ERR_INVALID')) return err;
  return new PlatformNetworkError(call, err, TRANSIENT_CODES.has(code));
}

/** The error's code; for an AggregateError (one error per address tried), the first inner code. */
function codeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  if (err instanceof AggregateError) return err.errors.map(codeOf).find((c) => c !== undefined);
  return undefined;
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function queryString(query: PlatformRequest['query']): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.append(key, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
