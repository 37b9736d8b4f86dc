/**
 * The bot's incoming updates, and the two ways Telegram hands them out
 * (https://core.telegram.org/bots/api#getting-updates):
 *
 * getUpdates (offset, limit, timeout, allowed_updates):
 * - an update stays until it is confirmed: a later getUpdates with an
 *   `offset` higher than its `update_id`; a negative offset keeps only the
 *   last -offset updates; every earlier one is forgotten;
 * - at most `limit` (1–100, default 100) oldest first; `timeout` seconds of
 *   long polling: the request is held until an update arrives or the time
 *   is up (0: answered at once);
 * - a second getUpdates while one is held ends the first with 409
 *   "Conflict: terminated by other getUpdates request; …"; setWebhook ends
 *   it with 409 "Conflict: terminated by setWebhook request"; while a
 *   webhook is set getUpdates is 409 "Conflict: can't use getUpdates method
 *   while webhook is active; …";
 * - `allowed_updates` (as setWebhook's) keeps later updates of other kinds
 *   from being made at all; updates made before stay.
 *
 * The webhook (setWebhook's url, secret_token, max_connections): pending
 * updates are POSTed to it as JSON, oldest first, one at a time, with
 * `X-Telegram-Bot-Api-Secret-Token` when a secret is set; a 2xx confirms
 * one, anything else is kept for getWebhookInfo (`last_error_message`,
 * "Wrong response from the webhook: 401 Unauthorized") and tried again after
 * `retryMs`. Every post is recorded for the tests.
 */
import { otherGetUpdates, terminatedBySetWebhook, webhookActive } from './bot-errors.ts';

export type Update = { update_id: number } & Record<string, unknown>;

export interface Webhook {
  url: string;
  secret: string | undefined;
  maxConnections: number;
}

export interface WebhookPost {
  update_id: number;
  /** The answer's status; 0 when none came. */
  status: number;
  /** The secret header as sent (undefined without one). */
  secret: string | undefined;
  at: number;
}

interface Waiter {
  wake: () => void;
  fail: (err: Error) => void;
}

export class UpdateQueue {
  readonly #pending: Update[] = [];
  #nextId = 100_000_000 + Math.floor(Math.random() * 100_000_000);
  #waiter: Waiter | undefined;
  #allowed: string[] | undefined;
  webhook: Webhook | undefined;
  readonly posts: WebhookPost[] = [];
  lastError: { date: number; message: string } | undefined;
  #pushing = false;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;
  readonly #retryMs: number;

  constructor(retryMs: number) {
    this.#retryMs = retryMs;
  }

  get pendingCount(): number {
    return this.#pending.length;
  }

  /** Makes an update of `kind` (`message`, `edited_message`, …) unless allowed_updates leaves it out; answers its id. */
  push(kind: string, payload: Record<string, unknown>): number | undefined {
    if (this.#allowed !== undefined && this.#allowed.length > 0 && !this.#allowed.includes(kind)) return undefined;
    const update: Update = { update_id: this.#nextId++, [kind]: payload };
    this.#pending.push(update);
    this.#waiter?.wake();
    this.#kick();
    return update.update_id;
  }

  setAllowed(allowed: string[] | undefined): void {
    if (allowed !== undefined) this.#allowed = allowed;
  }

  /** getUpdates: confirms what `offset` says, then answers at most `limit` updates, waiting up to `timeoutS` for one. */
  async getUpdates(offset: number | undefined, limit: number, timeoutS: number, gone: AbortSignal): Promise<Update[]> {
    if (this.webhook) throw webhookActive();
    this.#waiter?.fail(otherGetUpdates());
    this.#confirm(offset);
    if (this.#pending.length === 0 && timeoutS > 0) {
      await new Promise<void>((resolve, reject) => {
        const finish = (err?: Error) => {
          clearTimeout(timer);
          gone.removeEventListener('abort', onGone);
          if (this.#waiter === waiter) this.#waiter = undefined;
          if (err) reject(err);
          else resolve();
        };
        const onGone = () => finish();
        const waiter: Waiter = { wake: () => finish(), fail: (err) => finish(err) };
        const timer = setTimeout(onGone, timeoutS * 1000);
        gone.addEventListener('abort', onGone, { once: true });
        this.#waiter = waiter;
      });
    }
    return this.#pending.slice(0, limit);
  }

  #confirm(offset: number | undefined): void {
    if (offset === undefined || offset === 0) return;
    if (offset < 0) {
      this.#pending.splice(0, Math.max(0, this.#pending.length + offset));
      return;
    }
    while (this.#pending.length > 0 && this.#pending[0]!.update_id < offset) this.#pending.shift();
  }

  setWebhook(webhook: Webhook, dropPending: boolean): void {
    this.#waiter?.fail(terminatedBySetWebhook());
    if (dropPending) this.#pending.length = 0;
    this.webhook = webhook;
    this.lastError = undefined;
    this.#kick();
  }

  deleteWebhook(dropPending: boolean): boolean {
    const had = this.webhook !== undefined;
    this.webhook = undefined;
    if (dropPending) this.#pending.length = 0;
    clearTimeout(this.#retry);
    return had;
  }

  #kick(): void {
    if (this.#pushing || this.#closed || !this.webhook || this.#pending.length === 0) return;
    this.#pushing = true;
    void this.#pushAll().finally(() => {
      this.#pushing = false;
    });
  }

  /** Posts the oldest pending update until none is left, the webhook changed, or one post failed (tried again later). */
  async #pushAll(): Promise<void> {
    while (!this.#closed && this.webhook && this.#pending.length > 0) {
      const webhook = this.webhook;
      const update = this.#pending[0]!;
      const { status, statusText } = await post(webhook, update);
      this.posts.push({ update_id: update.update_id, status, secret: webhook.secret, at: Date.now() });
      if (this.#closed || this.webhook !== webhook) return;
      if (status < 200 || status > 299) {
        this.lastError = { date: Math.floor(Date.now() / 1000), message: status === 0 ? statusText : `Wrong response from the webhook: ${status} ${statusText}` };
        this.#retry = setTimeout(() => this.#kick(), this.#retryMs);
        return;
      }
      if (this.#pending[0] === update) this.#pending.shift();
    }
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#waiter?.wake();
  }
}

/** One POST of an update to the webhook: its status (0 when no answer came) and status text or network error. */
async function post(webhook: Webhook, update: Update): Promise<{ status: number; statusText: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (webhook.secret !== undefined) headers['x-telegram-bot-api-secret-token'] = webhook.secret;
  try {
    const res = await fetch(webhook.url, { method: 'POST', headers, body: JSON.stringify(update), redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
    return { status: res.status, statusText: res.statusText };
  } catch (err) {
    return { status: 0, statusText: (err as { cause?: { code?: string } }).cause?.code ?? 'Connection failed' };
  }
}
