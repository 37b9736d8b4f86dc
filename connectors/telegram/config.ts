/**
 * The Telegram connector's own settings keys. Strict: an unknown key is a
 * typo and refused; every problem names its key and never repeats the token
 * or the webhook secret.
 *
 *   - name: telegram
 *     type: telegram
 *     bot_token: ${TELEGRAM_BOT_TOKEN}         # from @BotFather: "123456789:AA…"
 *     mode: polling                            # or webhook (then webhook_url)
 *     api_url: https://api.telegram.org        # a local Bot API server, or a test's counterpart
 *     webhook_url: https://gw.example.com/connectors/telegram/webhook   # webhook mode only
 *     webhook_secret: ${TELEGRAM_WEBHOOK_SECRET}   # optional; default derived from the token
 *     allow_groups: false                      # group and supergroup chats are skipped unless true
 *     poll_timeout_seconds: 25                 # getUpdates' long poll (1–50 s)
 *     timeout_ms: 10000                        # per request to the Bot API (files: at least a minute)
 *     attachments: { keep: true, max_file_bytes: 10485760, max_message_bytes: 26214400 }
 *
 * `attachments` has the keys of the e-mail and ticket connectors (`keep`,
 * `max_file_bytes`, and the per-message budget, here `max_message_bytes`).
 */
import { z } from 'zod';

const MIB = 1024 * 1024;
export const DEFAULT_API_URL = 'https://api.telegram.org';
/** Telegram takes uploads of up to 50 MB from a bot (sendDocument); a larger limit could never be used. */
export const MAX_UPLOAD_BYTES = 50 * MIB;

/** What BotFather hands out: the bot's numeric id, a colon, and at least 30 characters of [A-Za-z0-9_-]. */
const BOT_TOKEN = /^\d{1,20}:[A-Za-z0-9_-]{30,}$/;
/** Telegram's rule for `secret_token` of setWebhook: 1–256 of A–Z, a–z, 0–9, `_` and `-` (we ask for 16 or more). */
const WEBHOOK_SECRET = /^[A-Za-z0-9_-]{16,256}$/;

const httpUrl = (what: string) =>
  z
    .url({ protocol: /^https?$/, error: `expected the http(s) URL of ${what}` })
    .refine((url) => !/^[a-z]+:\/\/[^/]*@/i.test(url), { error: 'must not carry user:password@' })
    .refine((url) => !/[?#]/.test(url), { error: 'must not carry a query or fragment' });

export const TelegramAttachmentSettings = z
  .strictObject({
    /** Incoming files kept in the gateway's file store and linked from the chat (false: named with their size only). */
    keep: z.boolean().default(true),
    /** Per file, both ways. Telegram hands a bot files of up to 20 MB and takes uploads of up to 50 MB. */
    max_file_bytes: z.number().int().min(1).max(MAX_UPLOAD_BYTES).default(10 * MIB),
    /** All files of one message or reply together. */
    max_message_bytes: z.number().int().min(1).max(500 * MIB).default(25 * MIB),
  })
  .prefault({});
export type TelegramAttachmentSettings = z.output<typeof TelegramAttachmentSettings>;

const fields = z.strictObject({
  /** The bot's token from @BotFather. It is part of every Bot API URL: never logged, never in an error. */
  bot_token: z
    .string()
    .trim()
    .refine((token) => BOT_TOKEN.test(token), { error: 'expected the token @BotFather gave: the bot id, a colon, then letters, digits, _ or -' }),
  /** `polling`: getUpdates (long poll) on one replica. `webhook`: Telegram POSTs each update to webhook_url. */
  mode: z.enum(['polling', 'webhook']).default('polling'),
  /** The Bot API's root: Telegram's, a local Bot API server, or a test's counterpart. */
  api_url: httpUrl('the Bot API').default(DEFAULT_API_URL).transform((url) => url.replace(/\/+$/, '')),
  /** Webhook mode: the address Telegram posts to, `<server.public_url>/connectors/<name>/webhook`. */
  webhook_url: httpUrl('this connector’s webhook route').optional(),
  /** Webhook mode: the `secret_token` Telegram sends in X-Telegram-Bot-Api-Secret-Token; default derived from the bot token. */
  webhook_secret: z
    .string()
    .refine((secret) => WEBHOOK_SECRET.test(secret), { error: 'expected 16 to 256 characters of A-Z, a-z, 0-9, _ and - (Telegram’s rule for secret_token)' })
    .optional(),
  /** Messages of group and supergroup chats are posted (one thread per group) instead of skipped. */
  allow_groups: z.boolean().default(false),
  /** How long one getUpdates waits for an update (long polling; Telegram's short polling is for tests only). */
  poll_timeout_seconds: z.number().int().min(1).max(50).default(25),
  /** Per request to the Bot API (a long poll: its wait plus this; a file: at least a minute). */
  timeout_ms: z.number().int().min(1_000).max(120_000).default(10_000),
  attachments: TelegramAttachmentSettings,
});

export const TelegramConnectorConfig = fields.superRefine((config, ctx) => {
  if (config.mode === 'webhook' && config.webhook_url === undefined) {
    ctx.addIssue({ code: 'custom', path: ['webhook_url'], message: 'required with mode: webhook (<server.public_url>/connectors/<name>/webhook)' });
  }
  if (config.mode === 'polling') {
    for (const key of ['webhook_url', 'webhook_secret'] as const) {
      if (config[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'only with mode: webhook' });
    }
  }
});
export type TelegramConnectorConfig = z.output<typeof TelegramConnectorConfig>;
