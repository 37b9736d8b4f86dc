/**
 * The Telegram connector's errors, each with a stable `TG_TELEGRAM_…` code,
 * and what a Bot API answer becomes. Telegram answers every failure as
 *
 *   {"ok": false, "error_code": 429, "description": "Too Many Requests: retry after 5",
 *    "parameters": {"retry_after": 5, "migrate_to_chat_id": -100…}}
 *
 * (https://core.telegram.org/bots/api#making-requests, #responseparameters):
 *
 * | answer                                     | error                          | deliver       | the poller     |
 * |--------------------------------------------|--------------------------------|---------------|----------------|
 * | 429 (`parameters.retry_after` seconds)     | TelegramRateLimitedError       | waits that    | waits that     |
 * | 403 "…bot was blocked by the user"         | TelegramBotBlockedError        | dead-letters  | —              |
 * | 403 otherwise (kicked, user deactivated)   | TelegramForbiddenError         | dead-letters  | —              |
 * | 400 "…chat not found"                      | TelegramChatNotFoundError      | dead-letters  | —              |
 * | 400 with `migrate_to_chat_id`              | TelegramChatMigratedError      | sent anew there                |
 * | any other 4xx but 409                      | TelegramRequestRefusedError    | dead-letters  | backs off      |
 * | 401, 404 (the token is refused)            | TelegramUnauthorizedError      | retried       | backs off (health: not ok) |
 * | 409, 5xx, no answer, a malformed answer    | TelegramUnavailableError       | retried       | backs off      |
 *
 * Messages name Telegram's host, the method and Telegram's own description,
 * never the URL: the bot token is part of its path.
 */
import { PermanentDeliveryError, RetryLaterError, TransientDeliveryError } from '../../src/connector/api.ts';

/** What Telegram answered, for the errors that carry it. */
export interface TelegramAnswer {
  /** The Bot API method (`sendMessage`), or `file download`. */
  method: string;
  /** Telegram's `error_code` (else the HTTP status); undefined when no answer came. */
  status: number | undefined;
  /** Telegram's `description`, or why no answer came. */
  description: string;
}

export class TelegramRateLimitedError extends RetryLaterError {
  override readonly code: string = 'TG_TELEGRAM_RATE_LIMITED';
  readonly answer: TelegramAnswer;
  constructor(message: string, retryAfterMs: number, answer: TelegramAnswer) {
    super(message, retryAfterMs);
    this.answer = answer;
  }
}

export class TelegramBotBlockedError extends PermanentDeliveryError {
  override readonly code: string = 'TG_TELEGRAM_BOT_BLOCKED';
  readonly answer: TelegramAnswer;
  constructor(message: string, answer: TelegramAnswer) {
    super(message);
    this.answer = answer;
  }
}

export class TelegramForbiddenError extends PermanentDeliveryError {
  override readonly code: string = 'TG_TELEGRAM_FORBIDDEN';
  readonly answer: TelegramAnswer;
  constructor(message: string, answer: TelegramAnswer) {
    super(message);
    this.answer = answer;
  }
}

export class TelegramChatNotFoundError extends PermanentDeliveryError {
  override readonly code: string = 'TG_TELEGRAM_CHAT_NOT_FOUND';
  readonly answer: TelegramAnswer;
  constructor(message: string, answer: TelegramAnswer) {
    super(message);
    this.answer = answer;
  }
}

/** A group became a supergroup: the chat lives on under `migrateToChatId`. */
export class TelegramChatMigratedError extends PermanentDeliveryError {
  override readonly code: string = 'TG_TELEGRAM_CHAT_MIGRATED';
  readonly answer: TelegramAnswer;
  readonly migrateToChatId: number;
  constructor(message: string, answer: TelegramAnswer, migrateToChatId: number) {
    super(message);
    this.answer = answer;
    this.migrateToChatId = migrateToChatId;
  }
}

/** Telegram refused the request for good (a bad parameter, a file it will not take). */
export class TelegramRequestRefusedError extends PermanentDeliveryError {
  override readonly code: string = 'TG_TELEGRAM_REQUEST_REFUSED';
  readonly answer: TelegramAnswer;
  constructor(message: string, answer: TelegramAnswer) {
    super(message);
    this.answer = answer;
  }
}

/** The bot token is refused (revoked, mistyped): nothing works until an operator fixes it. */
export class TelegramUnauthorizedError extends TransientDeliveryError {
  override readonly code: string = 'TG_TELEGRAM_UNAUTHORIZED';
  readonly answer: TelegramAnswer;
  constructor(message: string, answer: TelegramAnswer) {
    super(message);
    this.answer = answer;
  }
}

/** No answer, a 5xx, a conflict, or an answer of an unexpected shape: may pass. */
export class TelegramUnavailableError extends TransientDeliveryError {
  override readonly code: string = 'TG_TELEGRAM_UNAVAILABLE';
  readonly answer: TelegramAnswer;
  constructor(message: string, answer: TelegramAnswer) {
    super(message);
    this.answer = answer;
  }
}

/** A file larger than the connector's limit, by its announced length or as it arrived. */
export class TelegramFileTooLargeError extends PermanentDeliveryError {
  override readonly code: string = 'TG_TELEGRAM_FILE_TOO_LARGE';
}

/** An agent reply for a thread the gateway has no record of, or whose key is no Telegram chat id. */
export class TelegramThreadUnknownError extends PermanentDeliveryError {
  override readonly code: string = 'TG_TELEGRAM_THREAD_UNKNOWN';
}

/** The body Telegram answers a failure with, read loosely. */
export interface FailureBody {
  ok?: unknown;
  error_code?: unknown;
  description?: unknown;
  parameters?: { retry_after?: unknown; migrate_to_chat_id?: unknown };
}

/** When Telegram sends a 429 without `retry_after` (it always has): wait this long. */
const DEFAULT_RETRY_AFTER_S = 5;

/** The error a failed answer of `host` to `method` is. */
export function errorOfAnswer(host: string, method: string, httpStatus: number, body: FailureBody | undefined, excerpt: string): Error {
  const status = typeof body?.error_code === 'number' ? body.error_code : httpStatus;
  const description = typeof body?.description === 'string' && body.description !== '' ? body.description : excerpt || `HTTP ${httpStatus}`;
  const answer: TelegramAnswer = { method, status, description };
  const message = `Telegram at ${host} answered ${method} with ${status}: ${description}`;
  const retryAfter = body?.parameters?.retry_after;
  const migrateTo = body?.parameters?.migrate_to_chat_id;
  if (status === 429) {
    const seconds = typeof retryAfter === 'number' && retryAfter >= 0 ? retryAfter : DEFAULT_RETRY_AFTER_S;
    return new TelegramRateLimitedError(`${message} (retry after ${seconds} s)`, seconds * 1000, answer);
  }
  if (status === 401 || status === 404) return new TelegramUnauthorizedError(`${message} (is bot_token the one @BotFather gave, and api_url the Bot API's root?)`, answer);
  if (status === 403) return /blocked by the user/i.test(description) ? new TelegramBotBlockedError(message, answer) : new TelegramForbiddenError(message, answer);
  if (status === 400 && typeof migrateTo === 'number') return new TelegramChatMigratedError(message, answer, migrateTo);
  if (status === 400 && /chat not found/i.test(description)) return new TelegramChatNotFoundError(message, answer);
  if (status >= 400 && status < 500 && status !== 409) return new TelegramRequestRefusedError(message, answer);
  return new TelegramUnavailableError(message, answer);
}

/** Whether `err` says the bot token is refused. */
export const isUnauthorized = (err: unknown): err is TelegramUnauthorizedError => err instanceof TelegramUnauthorizedError;
