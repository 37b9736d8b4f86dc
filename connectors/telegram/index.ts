/**
 * The Telegram connector: a Telegram bot's private chats (and, when allowed,
 * its groups) as conversations on the platform, through the Bot API.
 *
 *   customer writes to the bot ──getUpdates (polling) or POST /connectors/<name>/webhook──▶ inbound-update ──▶ ctx.submit
 *     a photo or file          ──getFile + /file/bot<token>/<path>──▶ inbound-files ──▶ ctx.files (a link under the text)
 *     an edit, /start, a sticker, a group (allow_groups: false) ───▶ recorded as skipped, with a stable code
 *   sendMessage (≤ 4096 each), sendPhoto / sendDocument  ◀── reply-sender ◀── deliver(message_created)
 *
 * One thread per chat (its id is the thread key); each message comes from
 * its Telegram user. Settings: `config.ts`. The Bot API client and its
 * errors: `bot-api.ts`, `errors.ts`. Polling: `update-poller.ts` (the
 * connector's `poll`, one replica at a time, offset in the state). Webhook
 * mode: `webhook-mode.ts` (the route on every replica, the registration as
 * `poll`). Replies, exactly once: `reply-sender.ts`, `reply-progress.ts`,
 * `reply-files.ts`, `text-split.ts`. Health: `bot-status.ts`.
 */
import { defineConnector, type ConnectorInstance } from '../../src/connector/api.ts';
import { BotApi } from './bot-api.ts';
import { BotStatus } from './bot-status.ts';
import { TelegramConnectorConfig } from './config.ts';
import { UpdateHandler } from './inbound-update.ts';
import { ReplySender } from './reply-sender.ts';
import { StuckUpdates } from './stuck-updates.ts';
import { pollUpdates } from './update-poller.ts';
import { keepWebhookSet, registerWebhookRoute, webhookSecretOf } from './webhook-mode.ts';

export { TelegramConnectorConfig } from './config.ts';

export default defineConnector({
  type: 'telegram',
  configSchema: TelegramConnectorConfig,

  create(config, ctx): ConnectorInstance {
    const api = new BotApi({ apiUrl: config.api_url, token: config.bot_token, timeoutMs: config.timeout_ms });
    const webhookHost = config.webhook_url === undefined ? undefined : new URL(config.webhook_url).host;
    const status = new BotStatus({ mode: config.mode, apiHost: api.host, webhookHost });
    const handler = new UpdateHandler(ctx, api, { allowGroups: config.allow_groups, attachments: config.attachments });
    const stuck = new StuckUpdates((record) => ctx.skip(record), ctx.logger);
    const replies = new ReplySender({ ctx, api, status, limits: config.attachments });
    /** Aborted by `stop`: an update the webhook route has in hand is answered 503 and sent again by Telegram. */
    const stopped = new AbortController();

    let poll: ConnectorInstance['poll'];
    if (config.mode === 'webhook' && config.webhook_url !== undefined) {
      const secret = webhookSecretOf(config.bot_token, config.webhook_secret, ctx.name);
      const expected = `/connectors/${ctx.name}/webhook`;
      if (!new URL(config.webhook_url).pathname.endsWith(expected)) {
        ctx.logger.warn({ webhook: webhookHost }, `webhook_url does not end with ${expected}, where this connector takes updates: fine behind a proxy that rewrites the path, else Telegram's posts get lost`);
      }
      registerWebhookRoute(ctx, { handler, stuck, status, secret, signal: stopped.signal });
      const url = config.webhook_url;
      poll = ({ signal }) => keepWebhookSet({ api, status, logger: ctx.logger, url, secret }, signal);
    } else {
      poll = (pollContext) => pollUpdates({ api, handler, stuck, status, logger: ctx.logger, timeoutSeconds: config.poll_timeout_seconds }, pollContext);
    }

    return {
      // Reading Telegram (polling, or keeping the webhook set) is `poll`: one replica at a time.
      start() {},
      poll,
      stop() {
        stopped.abort(new Error('the connector is stopping'));
      },
      deliver(event, thread, context) {
        return replies.deliver(event, thread, context);
      },
      health() {
        return status.health();
      },
    };
  },
});
