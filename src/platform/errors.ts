/** Errors of the platform room: webhook signatures and platform API calls. */
import type { z } from 'zod';
import { ThreadgateError } from '../base/errors.ts';
import { fieldLines } from './error-body.ts';

export type SignatureProblem =
  | 'TG_SIGNATURE_MISSING'
  | 'TG_SIGNATURE_MALFORMED'
  | 'TG_SIGNATURE_INVALID'
  | 'TG_TIMESTAMP_MISSING'
  | 'TG_TIMESTAMP_MALFORMED'
  | 'TG_TIMESTAMP_STALE'
  | 'TG_TIMESTAMP_FUTURE';

/** A webhook whose signature or timestamp does not check out: 401. */
export class WebhookSignatureError extends ThreadgateError {
  readonly code: SignatureProblem;
  override readonly statusCode = 401;

  constructor(code: SignatureProblem, message: string) {
    super(message);
    this.code = code;
  }
}

// ─── Platform API calls ─────────────────────────────────────────────────────

/** The call an error is about; every message names it, never the token. */
export interface PlatformCall {
  method: string;
  /** Path and query as sent, without the origin. */
  path: string;
  /** Tries made, the first included. */
  attempts: number;
}

function callLabel(call: PlatformCall): string {
  return `${call.method} ${call.path}`;
}

function afterAttempts(call: PlatformCall): string {
  return call.attempts > 1 ? ` after ${call.attempts} attempts` : '';
}

export interface PlatformHttpErrorInit extends PlatformCall {
  status: number;
  detail: string;
  fieldErrors: Record<string, string[]>;
  body: unknown;
  retryAfterMs: number | undefined;
}

/**
 * The platform answered with a status that is not 2xx. `TG_PLATFORM_REJECTED`
 * for 3xx and 4xx other than 429 (retrying does not help);
 * `TG_PLATFORM_UNAVAILABLE` for 429 and 5xx once the transport's retries are
 * spent.
 */
export class PlatformHttpError extends ThreadgateError {
  readonly code: 'TG_PLATFORM_REJECTED' | 'TG_PLATFORM_UNAVAILABLE';
  override readonly statusCode: number;
  readonly method: string;
  readonly path: string;
  readonly attempts: number;
  readonly status: number;
  /** The body's `detail`, else a short summary of its field errors. */
  readonly detail: string;
  readonly fieldErrors: Readonly<Record<string, string[]>>;
  /** Parsed JSON, or text clipped to a few KiB (not enumerable: never logged). */
  declare readonly body: unknown;
  /** The server's Retry-After in ms, uncapped; undefined when not sent. */
  readonly retryAfterMs: number | undefined;

  constructor(init: PlatformHttpErrorInit) {
    const fields = fieldLines(init.fieldErrors);
    const extra = fields.length > 0 && !fields.some((f) => init.detail.includes(f)) ? ` (${fields.join('; ')})` : '';
    super(`${callLabel(init)} → ${init.status}: ${init.detail}${extra}${afterAttempts(init)}`);
    const unavailable = init.status === 429 || init.status >= 500;
    this.code = unavailable ? 'TG_PLATFORM_UNAVAILABLE' : 'TG_PLATFORM_REJECTED';
    this.statusCode = unavailable ? 503 : 502;
    this.method = init.method;
    this.path = init.path;
    this.attempts = init.attempts;
    this.status = init.status;
    this.detail = init.detail;
    this.fieldErrors = init.fieldErrors;
    hideBody(this, init.body);
    this.retryAfterMs = init.retryAfterMs;
  }
}

/**
 * No answer: connection refused or reset, socket closed, DNS, TLS.
 * `transient` is false for failures that waiting does not cure (a bad
 * certificate, an invalid request the socket refused).
 */
export class PlatformNetworkError extends ThreadgateError {
  readonly code = 'TG_PLATFORM_UNREACHABLE';
  override readonly statusCode = 502;
  readonly method: string;
  readonly path: string;
  readonly attempts: number;
  /** The underlying error's code, such as ECONNREFUSED or UND_ERR_SOCKET. */
  readonly causeCode: string | undefined;
  readonly transient: boolean;

  constructor(call: PlatformCall, cause: unknown, transient: boolean) {
    const causeCode = errorCode(cause);
    const reason = cause instanceof Error && cause.message !== '' ? cause.message : (causeCode ?? 'unknown error');
    super(`${callLabel(call)} → no response (${causeCode ?? 'network'}: ${reason})${afterAttempts(call)}`, { cause });
    this.method = call.method;
    this.path = call.path;
    this.attempts = call.attempts;
    this.causeCode = causeCode;
    this.transient = transient;
  }
}

/** No complete answer (status line, headers and body) within the timeout. */
export class PlatformTimeoutError extends ThreadgateError {
  readonly code = 'TG_PLATFORM_TIMEOUT';
  override readonly statusCode = 504;
  readonly method: string;
  readonly path: string;
  readonly attempts: number;
  readonly timeoutMs: number;

  constructor(call: PlatformCall, timeoutMs: number, options?: ErrorOptions) {
    super(`${callLabel(call)} → no complete response within ${timeoutMs} ms${afterAttempts(call)}`, options);
    this.method = call.method;
    this.path = call.path;
    this.attempts = call.attempts;
    this.timeoutMs = timeoutMs;
  }
}

/** One problem found by a zod schema, with its dotted path. */
export interface FieldIssue {
  path: string;
  message: string;
}

/** zod issues as `{ path: 'messages.0.body', message }`; with `prefix`, under it (`body.messages.0.body`, `query` for the whole). */
export function zodIssues(error: z.ZodError, prefix?: string): FieldIssue[] {
  return error.issues.map((issue) => ({ path: [...(prefix === undefined ? [] : [prefix]), ...issue.path.map(String)].join('.'), message: issue.message }));
}

function listIssues(issues: readonly FieldIssue[]): string {
  const shown = issues.slice(0, 5).map((i) => (i.path === '' ? i.message : `${i.path}: ${i.message}`));
  if (issues.length > shown.length) shown.push(`and ${issues.length - shown.length} more`);
  return shown.join('; ');
}

/** A 2xx answer whose body is not JSON or does not match the response schema. */
export class PlatformResponseError extends ThreadgateError {
  readonly code = 'TG_PLATFORM_BAD_RESPONSE';
  override readonly statusCode = 502;
  readonly method: string;
  readonly path: string;
  readonly attempts: number;
  readonly status: number;
  readonly issues: readonly FieldIssue[];
  /** Parsed JSON, or text clipped to a few KiB (not enumerable: never logged). */
  declare readonly body: unknown;

  constructor(call: PlatformCall, status: number, issues: FieldIssue[], body: unknown) {
    super(`${callLabel(call)} → ${status}: unexpected response body (${listIssues(issues)})`);
    this.method = call.method;
    this.path = call.path;
    this.attempts = call.attempts;
    this.status = status;
    this.issues = issues;
    hideBody(this, body);
  }
}

/** A request body or query that fails its schema; nothing was sent. */
export class PlatformRequestInvalidError extends ThreadgateError {
  readonly code = 'TG_PLATFORM_REQUEST_INVALID';
  override readonly statusCode = 400;
  readonly method: string;
  readonly path: string;
  readonly issues: readonly FieldIssue[];

  constructor(method: string, path: string, issues: FieldIssue[]) {
    super(`${method} ${path}: invalid request, nothing sent (${listIssues(issues)})`);
    this.method = method;
    this.path = path;
    this.issues = issues;
  }
}

/** Options of the platform HTTP client that cannot work. */
export class PlatformClientOptionsError extends ThreadgateError {
  readonly code = 'TG_PLATFORM_CLIENT_OPTIONS';
}

/**
 * Whether trying the same call again later may succeed: 429 and 5xx answers,
 * timeouts and transient network failures. What the job queue asks before it
 * schedules another attempt.
 */
export function isRetryable(err: unknown): boolean {
  if (err instanceof PlatformHttpError) return err.code === 'TG_PLATFORM_UNAVAILABLE';
  if (err instanceof PlatformTimeoutError) return true;
  if (err instanceof PlatformNetworkError) return err.transient;
  return false;
}

/**
 * The answer's body stays readable on the error but is not enumerable, so a
 * logger serialising the error never prints it: a configuration answer may
 * carry a `webhook_secret_key`.
 */
function hideBody(error: object, body: unknown): void {
  Object.defineProperty(error, 'body', { value: body, enumerable: false, writable: false, configurable: false });
}

function errorCode(err: unknown): string | undefined {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}
