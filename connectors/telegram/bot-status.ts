/**
 * What the connector knows of its bot, for `health()` and the admin page:
 * the mode, the Bot API's host, the bot's @username (from getMe), the
 * polling offset and the last update handled, and the last failure. No
 * token, no webhook secret, no URL path (the webhook is named by its host).
 *
 *   { ok: true, details: { mode: 'polling', api: 'api.telegram.org', bot: '@acme_help_bot',
 *     offset: 914, last_update_id: 913, updates: 12, last_error: null } }
 *
 * `ok` is false while Telegram refuses the bot token (TG_TELEGRAM_UNAUTHORIZED)
 * and once three rounds in a row (polls, webhook registrations) failed; one
 * success makes it true again.
 */
import type { ConnectorHealth, Logger } from '../../src/connector/api.ts';
import { isUnauthorized } from './errors.ts';

/** Failed rounds in a row before the connector reports itself unhealthy. */
export const UNHEALTHY_AFTER = 3;

export interface StatusOptions {
  mode: 'polling' | 'webhook';
  apiHost: string;
  /** Webhook mode: the host Telegram is told to post to. */
  webhookHost?: string | undefined;
}

export class BotStatus {
  readonly #options: StatusOptions;
  /** `@username`, once getMe answered. */
  bot: string | null = null;
  /** Polling: the offset the next getUpdates asks from (what the state holds). */
  offset: number | null = null;
  lastUpdateId: number | null = null;
  /** Updates handled by this process (submitted, skipped or ignored). */
  updates = 0;
  /** Webhook mode: whether setWebhook succeeded in this process. */
  webhookSet = false;
  /** Webhook mode: Telegram's `last_error_message` of its posts to the webhook (getWebhookInfo), if any. */
  webhookError: string | null = null;
  #lastError: string | null = null;
  #code: string | null = null;
  #failures = 0;
  #tokenRefused = false;

  constructor(options: StatusOptions) {
    this.#options = options;
  }

  /** A round (a poll, a registration, a delivery) got through. */
  succeeded(): void {
    this.#failures = 0;
    this.#lastError = null;
    this.#code = null;
    this.#tokenRefused = false;
  }

  /** A round failed with `err`; answers how many in a row have. */
  failed(err: unknown): number {
    this.#failures += 1;
    this.#lastError = err instanceof Error ? err.message : String(err);
    this.#code = (err as { code?: unknown } | null)?.code === undefined ? null : String((err as { code: unknown }).code);
    if (isUnauthorized(err)) this.#tokenRefused = true;
    return this.#failures;
  }

  /** A delivery failed: a refused token is news for health; anything else is the delivery log's. */
  deliveryFailed(err: unknown): void {
    if (isUnauthorized(err)) this.failed(err);
  }

  handled(updateId: number): void {
    this.updates += 1;
    this.lastUpdateId = updateId;
  }

  get tokenRefused(): boolean {
    return this.#tokenRefused;
  }

  health(): ConnectorHealth {
    const ok = !this.#tokenRefused && this.#failures < UNHEALTHY_AFTER;
    const details: Record<string, unknown> = {
      mode: this.#options.mode,
      api: this.#options.apiHost,
      bot: this.bot,
      ...(this.#options.mode === 'polling' ? { offset: this.offset } : { webhook: this.#options.webhookHost ?? null, webhook_set: this.webhookSet, webhook_error: this.webhookError }),
      last_update_id: this.lastUpdateId,
      updates: this.updates,
      last_error: this.#lastError,
      last_error_code: this.#code,
    };
    if (this.#tokenRefused) details.error = 'Telegram refuses the bot token (TG_TELEGRAM_UNAUTHORIZED): check bot_token';
    return { ok, details };
  }

  /** Logs a failed round: a refused token at error level (nothing works until it is fixed), the rest at warn. */
  logFailure(logger: Logger, what: string, err: unknown, retryInMs: number): void {
    const line = { code: this.#code, failures: this.#failures, retry_in_ms: retryInMs, api: this.#options.apiHost };
    if (isUnauthorized(err)) logger.error(line, `${what} failed: ${this.#lastError}`);
    else logger.warn(line, `${what} failed: ${this.#lastError}`);
  }
}
