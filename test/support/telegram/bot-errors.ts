/**
 * The counterpart's refusals, in the one shape the Bot API answers every
 * failure with (https://core.telegram.org/bots/api#making-requests,
 * https://core.telegram.org/bots/api#responseparameters):
 *
 *   {"ok": false, "error_code": 400, "description": "Bad Request: chat not found"}
 *   {"ok": false, "error_code": 429, "description": "Too Many Requests: retry after 3", "parameters": {"retry_after": 3}}
 *
 * The HTTP status is the `error_code`. The descriptions are Telegram's own
 * words where they are well known (Unauthorized, Not Found, chat not found,
 * message is too long, message text is empty, bot was blocked by the user,
 * the two getUpdates conflicts, file is too big, invalid file_id, the bad
 * webhook ones, Too Many Requests: retry after N, Request Entity Too Large);
 * where Telegram's exact words are not published (a bad parameter type, an
 * over-long caption, an unreadable photo) they are this counterpart's own,
 * in Telegram's form ("Bad Request: …").
 */

export interface ResponseParameters {
  retry_after?: number;
  migrate_to_chat_id?: number;
}

export class TgError extends Error {
  readonly status: number;
  readonly description: string;
  readonly parameters: ResponseParameters | undefined;

  constructor(status: number, description: string, parameters?: ResponseParameters) {
    super(`${status} ${description}`);
    this.status = status;
    this.description = description;
    this.parameters = parameters;
  }

  /** The JSON body Telegram answers with. */
  body(): Record<string, unknown> {
    return { ok: false, error_code: this.status, description: this.description, ...(this.parameters ? { parameters: this.parameters } : {}) };
  }
}

export const unauthorized = () => new TgError(401, 'Unauthorized');
export const notFound = () => new TgError(404, 'Not Found');
export const badRequest = (what: string) => new TgError(400, `Bad Request: ${what}`);
export const forbidden = (what: string) => new TgError(403, `Forbidden: ${what}`);
export const conflict = (what: string) => new TgError(409, `Conflict: ${what}`);
export const tooLarge = () => new TgError(413, 'Request Entity Too Large');
export const floodWait = (seconds: number) => new TgError(429, `Too Many Requests: retry after ${seconds}`, { retry_after: seconds });

export const chatNotFound = () => badRequest('chat not found');
export const botBlocked = () => forbidden('bot was blocked by the user');
export const webhookActive = () => conflict("can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first");
export const otherGetUpdates = () => conflict('terminated by other getUpdates request; make sure that only one bot instance is running');
export const terminatedBySetWebhook = () => conflict('terminated by setWebhook request');
export const groupMigrated = (to: number) => new TgError(400, 'Bad Request: group chat was upgraded to a supergroup chat', { migrate_to_chat_id: to });
