/**
 * A Telegram for tests: the counterpart of the `telegram` connector, one bot
 * of the Bot API on a real HTTP server on port 0, in memory, written from
 * Telegram's published reference:
 *
 * - https://core.telegram.org/bots/api#making-requests (URLs, the four ways of passing parameters, `{ok, result}`, errors)
 * - https://core.telegram.org/bots/api#responseparameters (`retry_after`, `migrate_to_chat_id`)
 * - https://core.telegram.org/bots/api#getting-updates, #update, #getupdates (offset, limit, timeout, allowed_updates, 409s)
 * - https://core.telegram.org/bots/api#setwebhook, #deletewebhook, #getwebhookinfo, #webhookinfo (secret_token, ports, HTTPS)
 * - https://core.telegram.org/bots/api#getme, #user, #chat, #message
 * - https://core.telegram.org/bots/api#getfile, #file (file_path, the 20 MB download cap, /file/bot<token>/<file_path>)
 * - https://core.telegram.org/bots/api#sendmessage (1–4096 characters), #senddocument (50 MB), #sendphoto (10 MB),
 *   #inputfile (multipart/form-data uploads), #photosize, #document
 * - https://core.telegram.org/bots/api#using-a-local-bot-api-server (HTTP webhooks on any port: `allowHttpWebhook`)
 * - https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this (flood control, 429)
 * - https://core.telegram.org/bots/features#privacy-mode (what a bot sees in groups)
 *
 * It refuses what Telegram refuses, in Telegram's shape (bot-errors.ts): a
 * wrong token, an unknown method, a chat the bot does not know, a user who
 * blocked the bot, a too long text, an empty one, a too large file, a second
 * getUpdates, getUpdates beside a webhook, a webhook that is not HTTPS.
 *
 * The test-facing side acts as Telegram's users: `newCustomer` (a user who
 * opened a private chat with the bot), `customerSays`, `customerSendsDocument`,
 * `customerSendsPhoto`, `customerSends` (any other content), `customerEdits`,
 * `blockBot`, `newGroup` and `migrateGroup`; `sentTo(chatId)` is what the bot
 * sent there; `flood` and `fail` order 429s and other failures; `requests`
 * records every call.
 */
import { extname } from 'node:path';
import type { Bot } from './bot-methods.ts';
import { startBotServer, type OrderedFailure, type RecordedCall } from './bot-server.ts';
import { BotState, type BotMessage, type TgChat, type TgUser } from './bot-state.ts';
import { FloodControl, type FloodLimits } from './flood-limits.ts';
import { UpdateQueue, type WebhookPost } from './update-queue.ts';

export interface TelegramOptions {
  /** The bot's username. Default `threadgate_test_bot`. */
  botUsername?: string;
  /** Default: the documented ones (flood-limits.ts). */
  limits?: Partial<FloodLimits>;
  /** getFile refuses larger files. Default 20 MB, Telegram's. */
  maxDownloadBytes?: number;
  /** The largest upload taken. Default 50 MB, Telegram's. */
  maxUploadBytes?: number;
  /** Take http:// webhooks on any port, as a local Bot API server does. Default false, as api.telegram.org. */
  allowHttpWebhook?: boolean;
  /** How long a failed webhook post waits before the next try. Default 1 000 ms. */
  webhookRetryMs?: number;
}

export interface CustomerFile {
  filename: string;
  contentType: string;
  content: Buffer;
  caption?: string;
}

export interface TestTelegram {
  /** The Bot API root (the connector's `api_url`). */
  url: string;
  host: string;
  /** The bot's token (the connector's `bot_token`). */
  token: string;
  bot: TgUser;
  state: BotState;
  requests: RecordedCall[];
  failures: OrderedFailure[];
  /** The webhook's posts, as Telegram made them. */
  webhookPosts: WebhookPost[];
  newCustomer(fields?: Partial<Omit<TgUser, 'id' | 'is_bot'>>): TgUser;
  newGroup(title: string, type?: 'group' | 'supergroup'): TgChat;
  /** A text message to the bot in `chatId` (a private chat: from its user; a group: `from`); answers its message_id. */
  customerSays(chatId: number, text: string, from?: TgUser): number;
  customerSendsDocument(chatId: number, file: CustomerFile, from?: TgUser): number;
  customerSendsPhoto(chatId: number, photo: { content: Buffer; caption?: string }, from?: TgUser): number;
  /** A message of any other content (`{ sticker: {…} }`). */
  customerSends(chatId: number, content: Record<string, unknown>, from?: TgUser): number;
  customerEdits(chatId: number, messageId: number, text: string, from?: TgUser): void;
  /** The chat's user blocks the bot: sends are refused with 403 from now on. */
  blockBot(chatId: number): void;
  /** A group becomes a supergroup: sends to the old id answer 400 with migrate_to_chat_id. */
  migrateGroup(chatId: number): TgChat;
  /** What the bot sent to `chatId`, oldest first. */
  sentTo(chatId: number): BotMessage[];
  /** The next `times` calls of `method` are refused with 429, `retry_after` = `seconds`. */
  flood(method: string, seconds: number, times?: number): void;
  /** The next `times` (default 1) calls of `method`, after letting `after` (default 0) through, answer `status` with `description`. */
  fail(method: string, status: number, description: string, options?: { times?: number; after?: number }): void;
  /** The recorded calls of `method` (case-insensitive). */
  calls(method: string): RecordedCall[];
  /** Updates made and not yet confirmed (or posted to the webhook). */
  pendingUpdates(): number;
  close(): Promise<void>;
}

export async function startTelegram(options: TelegramOptions = {}): Promise<TestTelegram> {
  const state = new BotState(options.botUsername ?? 'threadgate_test_bot');
  const queue = new UpdateQueue(options.webhookRetryMs ?? 1_000);
  const flood = new FloodControl(options.limits);
  const bot: Bot = {
    state,
    queue,
    flood,
    maxDownloadBytes: options.maxDownloadBytes ?? 20 * 1024 * 1024,
    maxUploadBytes: options.maxUploadBytes ?? 50 * 1024 * 1024,
    allowHttpWebhook: options.allowHttpWebhook ?? false,
  };
  const server = await startBotServer(bot);

  const author = (chat: TgChat, from: TgUser | undefined): TgUser => {
    const user = from ?? chat.user;
    if (user === undefined) throw new Error(`say who writes in the ${chat.type} ${chat.id} (from)`);
    return user;
  };
  const message = (chatId: number, content: Record<string, unknown>, from?: TgUser): number => {
    const chat = state.chat(chatId);
    const id = state.nextMessageId(chat);
    queue.push('message', state.messageJson(chat, author(chat, from), id, content));
    return id;
  };

  return {
    url: server.url,
    host: new URL(server.url).host,
    token: state.token,
    bot: state.bot,
    state,
    requests: server.requests,
    failures: server.failures,
    webhookPosts: queue.posts,
    newCustomer: (fields) => state.addUser(fields),
    newGroup: (title, type) => state.addGroup(title, type),
    customerSays: (chatId, text, from) => message(chatId, { text }, from),
    customerSendsDocument(chatId, file, from) {
      const stored = state.addFile(file.content, 'documents', extname(file.filename));
      return message(chatId, { document: state.documentJson(stored, file.filename, file.contentType), ...(file.caption ? { caption: file.caption } : {}) }, from);
    },
    customerSendsPhoto: (chatId, photo, from) => message(chatId, { photo: state.photoJson(photo.content), ...(photo.caption ? { caption: photo.caption } : {}) }, from),
    customerSends: (chatId, content, from) => message(chatId, content, from),
    customerEdits(chatId, messageId, text, from) {
      const chat = state.chat(chatId);
      const now = Math.floor(Date.now() / 1000);
      queue.push('edited_message', state.messageJson(chat, author(chat, from), messageId, { text, edit_date: now }, now - 1));
    },
    blockBot(chatId) {
      const chat = state.chat(chatId);
      chat.blocked = true;
      const user = author(chat, undefined);
      const member = (status: string) => ({ user: state.userJson(state.bot), status, ...(status === 'kicked' ? { until_date: 0 } : {}) });
      queue.push('my_chat_member', { chat: state.chatJson(chat), from: state.userJson(user), date: Math.floor(Date.now() / 1000), old_chat_member: member('member'), new_chat_member: member('kicked') });
    },
    migrateGroup(chatId) {
      const old = state.chat(chatId);
      const next = state.addGroup(old.title ?? 'group', 'supergroup');
      old.migratedTo = next.id;
      return next;
    },
    sentTo: (chatId) => state.sent.filter((m) => m.chat_id === chatId),
    flood: (method, seconds, times = 1) => flood.order(method, seconds, times),
    fail: (method, status, description, options = {}) => void server.failures.push({ method, status, description, times: options.times ?? 1, after: options.after ?? 0 }),
    calls: (method) => server.requests.filter((r) => r.method.toLowerCase() === method.toLowerCase()),
    pendingUpdates: () => queue.pendingCount,
    close: () => server.close(),
  };
}
