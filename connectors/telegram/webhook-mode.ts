/**
 * Webhook mode: Telegram POSTs each update to
 * `<server.public_url>/connectors/<name>/webhook` (the `webhook_url` setting)
 * with the header `X-Telegram-Bot-Api-Secret-Token: <secret_token>`
 * (https://core.telegram.org/bots/api#setwebhook).
 *
 * - The route compares that header with the secret in constant time (both
 *   hashed, so their lengths tell nothing); missing or wrong: 401
 *   `TG_TELEGRAM_WEBHOOK_SECRET_INVALID`, logged at info without the header,
 *   and nothing is submitted. A body that is no update: 400
 *   `TG_TELEGRAM_UPDATE_INVALID` naming the field. Otherwise the update is
 *   handled as a polled one (inbound-update.ts) and the answer, 200, comes
 *   after what it became is stored; when it cannot be handled now the answer
 *   is 503 `TG_TELEGRAM_UPDATE_FAILED` and Telegram sends it again later.
 * - The registration runs as the connector's `poll` (on one replica): getMe,
 *   then setWebhook with the URL, the secret, `allowed_updates` and
 *   `max_connections: 1` (updates one at a time, so a chat's messages arrive
 *   in order), retried until it succeeds; then every ten minutes
 *   getWebhookInfo, setting the webhook again if it points elsewhere, and
 *   keeping Telegram's last delivery error for health.
 *
 * The secret is `webhook_secret`, or, without one, derived from the bot
 * token and the connector's name (HMAC-SHA256, base64url): the same on every
 * replica and after every restart, never logged.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { RouteError, sleep, type ConnectorContext, type Logger, type RouteResponse } from '../../src/connector/api.ts';
import type { BotApi } from './bot-api.ts';
import type { BotStatus } from './bot-status.ts';
import type { UpdateHandler } from './inbound-update.ts';
import { untilDone } from './retry-wait.ts';
import type { StuckUpdates } from './stuck-updates.ts';
import { identifyBot } from './update-poller.ts';
import { ALLOWED_UPDATES, TrueResult, WebhookInfo } from './telegram-types.ts';

export const WEBHOOK_PATH = '/webhook';
export const SECRET_HEADER = 'x-telegram-bot-api-secret-token';
/** How often the registration looks whether Telegram still posts to us. */
export const WEBHOOK_CHECK_MS = 10 * 60_000;

/** The secret_token: the configured one, else derived from the token and the connector's name. */
export function webhookSecretOf(botToken: string, configured: string | undefined, connector: string): string {
  return configured ?? createHmac('sha256', botToken).update(`threadgate telegram webhook ${connector}`).digest('base64url');
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

export interface WebhookRouteDeps {
  handler: UpdateHandler;
  stuck: StuckUpdates;
  status: BotStatus;
  secret: string;
  /** Aborts when the connector stops: an update in hand is then answered 503 and sent again. */
  signal: AbortSignal;
}

export function registerWebhookRoute(ctx: Pick<ConnectorContext, 'routes' | 'logger'>, deps: WebhookRouteDeps): void {
  const expected = sha256(deps.secret);
  const refuse = (status: number, code: string, message: string, errors?: { path: string; message: string }[]): RouteError => {
    ctx.logger.info({ route: `POST ${WEBHOOK_PATH}`, status, code }, `webhook request refused: ${message}`);
    return new RouteError(status, code, message, errors);
  };
  ctx.routes.add('POST', WEBHOOK_PATH, async (request): Promise<RouteResponse> => {
    const given = request.headers[SECRET_HEADER];
    if (given === undefined || !timingSafeEqual(sha256(given), expected)) {
      throw refuse(401, 'TG_TELEGRAM_WEBHOOK_SECRET_INVALID', `the ${SECRET_HEADER} header is ${given === undefined ? 'missing' : 'not the webhook’s secret_token'}`);
    }
    let update: unknown;
    try {
      update = JSON.parse(request.rawBody.toString('utf8'));
    } catch {
      throw refuse(400, 'TG_TELEGRAM_UPDATE_INVALID', 'the body is not JSON');
    }
    const id = (update as { update_id?: unknown } | null)?.update_id;
    if (typeof id !== 'number' || !Number.isSafeInteger(id)) {
      throw refuse(400, 'TG_TELEGRAM_UPDATE_INVALID', 'update_id: expected an integer', [{ path: 'update_id', message: 'expected an integer' }]);
    }
    try {
      await deps.handler.handle(update, deps.signal);
      deps.stuck.succeeded(id);
    } catch (err) {
      if (!(await deps.stuck.failed(id, err))) {
        const reason = err instanceof Error ? err.message : String(err);
        ctx.logger.warn({ update_id: id, code: (err as { code?: unknown }).code }, `update ${id} not handled now (Telegram sends it again): ${reason}`);
        throw new RouteError(503, 'TG_TELEGRAM_UPDATE_FAILED', `update ${id} could not be handled now; send it again later`);
      }
    }
    deps.status.handled(id);
    return { status: 200, body: {} };
  });
}

export interface RegistrationDeps {
  api: BotApi;
  status: BotStatus;
  logger: Logger;
  url: string;
  secret: string;
  checkEveryMs?: number;
}

/** The connector's `poll` in webhook mode: sets the webhook, keeps it set, until `signal` aborts. Never throws. */
export async function keepWebhookSet(deps: RegistrationDeps, signal: AbortSignal): Promise<void> {
  const { api, status, logger } = deps;
  const host = new URL(deps.url).host;
  const set = () =>
    untilDone(
      'setting the Telegram webhook (getMe, setWebhook)',
      async () => {
        await identifyBot(api, status, signal);
        const params = { url: deps.url, secret_token: deps.secret, allowed_updates: ALLOWED_UPDATES, max_connections: 1, drop_pending_updates: false };
        await api.call('setWebhook', params, TrueResult, signal);
        status.webhookSet = true;
        logger.info({ bot: status.bot, webhook: host }, 'Telegram posts this bot’s updates to the webhook');
        return true;
      },
      deps,
      signal,
    );
  if (!(await set())) return;
  while (!signal.aborted) {
    await sleep(deps.checkEveryMs ?? WEBHOOK_CHECK_MS, signal);
    if (signal.aborted) break;
    try {
      const info = await api.call('getWebhookInfo', {}, WebhookInfo, signal);
      status.webhookError = info.last_error_message ?? null;
      if (info.url !== deps.url) {
        status.webhookSet = false;
        logger.warn({ webhook: host }, 'the Telegram webhook points elsewhere (set by another program?): setting it again');
        await set();
      }
    } catch (err) {
      if (signal.aborted) break;
      logger.warn({ code: (err as { code?: unknown }).code }, `checking the Telegram webhook failed: ${(err as Error).message}`);
    }
  }
}
