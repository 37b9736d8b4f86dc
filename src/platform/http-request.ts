/**
 * The shapes of a call to the platform's API through `PlatformHttpClient`
 * (http-client.ts): the client's options and their schema, a request with its
 * per-call overrides, the answers (parsed, or a body left to stream), and
 * what each attempt tells the metrics.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import type { RetryPolicy } from './retry.ts';

export type TokenType = 'Token' | 'Bearer';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const DEFAULT_TIMEOUT_MS = 10_000;

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
  /**
   * A POST is retried only when the platform cannot have acted on it
   * (connection refused, 429, 503); true says repeating it is harmless, so
   * timeouts, resets and other 5xx are retried too. Other methods are retried
   * on every transient failure.
   */
  idempotent?: boolean;
  /** Aborts the call, waits between attempts included; its reason is thrown. */
  signal?: AbortSignal;
}

export interface PlatformRequest extends CallOptions {
  method: HttpMethod;
  /** Relative to the base URL, starting with `/`, segments already encoded. */
  path: string;
  query?: Record<string, string | number | readonly string[] | undefined>;
  /** Sent as JSON when defined. */
  body?: unknown;
  /**
   * Sent as it is instead of `body`: a multipart upload (undici sets the
   * content type of a FormData) or a text whose content type `headers` names.
   */
  rawBody?: FormData | string;
  /** Extra headers (e.g. `X-PRIVATE-KEY`); never logged. Authorization cannot be overridden. */
  headers?: Record<string, string>;
  /** A 3xx is the answer (sign-in redirects), resolved like a 2xx instead of thrown; never followed. */
  redirects?: boolean;
  /**
   * Send no platform token (sign-in endpoints authenticate the app, not the
   * API caller); the caller's own Authorization header, e.g. HTTP Basic with
   * the app ID and secret, is then passed on.
   */
  anonymous?: boolean;
}

/** A 2xx answer whose body is left unread: a download to stream. */
export interface PlatformStreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Dispatcher.ResponseData['body'];
  attempts: number;
}

export interface PlatformResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** Parsed JSON; the text when it is not JSON; undefined when empty. */
  body: unknown;
  /** Tries it took, the first included. */
  attempts: number;
}

const Token = z.string().regex(/^[\x21-\x7e]+$/, { error: 'must be printable ASCII without spaces' });
const TokenTypeSchema = z.enum(['Token', 'Bearer']);
export const CredentialsSchema = z.strictObject({ token: Token, tokenType: TokenTypeSchema });

export const HttpOptionsSchema = z.strictObject({
  baseUrl: z
    .url({ protocol: /^https?$/ })
    .refine((u) => !/^[a-z]+:\/\/[^/]*@/i.test(u), { error: 'must not carry credentials' })
    .refine((u) => !u.includes('?') && !u.includes('#'), { error: 'must not carry a query or fragment' }),
  token: Token,
  tokenType: TokenTypeSchema.default('Token'),
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
