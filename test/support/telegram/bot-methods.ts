/**
 * The Bot API methods the counterpart serves, each as its reference page
 * describes it (https://core.telegram.org/bots/api#<method>):
 *
 *   getMe            the bot (a User with its username and can_* flags)
 *   getUpdates       offset, limit (1–100, default 100), timeout, allowed_updates (update-queue.ts)
 *   setWebhook       url (HTTPS, ports 443/80/88/8443 — unless `allowHttpWebhook`, as a local Bot API server),
 *                    secret_token (1–256 of A–Z a–z 0–9 _ -), max_connections (1–100, default 40),
 *                    allowed_updates, drop_pending_updates; url "" removes the webhook
 *   deleteWebhook    drop_pending_updates
 *   getWebhookInfo   url, pending_update_count, max_connections, last_error_date/message
 *   getFile          file_id → File with file_path; refused past the download cap (20 MB) "file is too big"
 *   sendMessage      chat_id, text (1–4096 characters, counted as UTF-16 units) → Message
 *   sendDocument     chat_id, document (an upload, or a known file_id), caption (≤ 1024) → Message; uploads ≤ 50 MB
 *   sendPhoto        chat_id, photo (a JPEG, PNG, GIF or WebP upload of ≤ 10 MB), caption → Message
 *
 * A send to a chat the bot does not know is 400 "chat not found"; to a user
 * who blocked the bot 403 "bot was blocked by the user"; to a group that
 * became a supergroup 400 with `migrate_to_chat_id`; then flood control
 * (flood-limits.ts).
 */
import type { Params, UploadedFile } from './bot-params.ts';
import { badRequest, botBlocked, chatNotFound, groupMigrated, tooLarge } from './bot-errors.ts';
import type { BotState, TgChat } from './bot-state.ts';
import type { FloodControl } from './flood-limits.ts';
import type { UpdateQueue } from './update-queue.ts';

export interface Bot {
  state: BotState;
  queue: UpdateQueue;
  flood: FloodControl;
  maxDownloadBytes: number;
  maxUploadBytes: number;
  allowHttpWebhook: boolean;
}

export interface MethodCall {
  params: Params;
  /** Aborts when the caller hung up (a long poll given up). */
  gone: AbortSignal;
}

export interface MethodAnswer {
  result: unknown;
  description?: string;
}

type Method = (call: MethodCall, bot: Bot) => MethodAnswer | Promise<MethodAnswer>;

const TEXT_MAX = 4_096;
const CAPTION_MAX = 1_024;
const PHOTO_MAX_BYTES = 10 * 1024 * 1024;
const SECRET_TOKEN = /^[A-Za-z0-9_-]{1,256}$/;
const WEBHOOK_PORTS = new Set(['443', '80', '88', '8443']);

/** The chat of a send method, after Telegram's checks; counted against flood control. */
function target(params: Params, bot: Bot): TgChat {
  const id = params.int('chat_id');
  if (id === undefined) throw badRequest('chat_id is empty');
  const chat = bot.state.chats.get(id);
  if (chat === undefined) throw chatNotFound();
  if (chat.migratedTo !== undefined) throw groupMigrated(chat.migratedTo);
  if (chat.blocked) throw botBlocked();
  return chat;
}

function caption(params: Params): string | undefined {
  const text = params.string('caption');
  if (text !== undefined && text.length > CAPTION_MAX) throw badRequest('message caption is too long');
  return text || undefined;
}

/** An upload, or a file the bot already knows by file_id. */
function fileParam(params: Params, name: string, bot: Bot): UploadedFile {
  const value = params.fileOrString(name);
  if (value === undefined) throw badRequest(`there is no ${name} in the request`);
  if (typeof value === 'string') {
    const known = bot.state.files.get(value);
    if (known !== undefined) return { filename: `${name}${known.extension}`, contentType: 'application/octet-stream', content: known.content };
    throw badRequest(/^https?:\/\//.test(value) ? 'failed to get HTTP URL content' : 'wrong file identifier/HTTP URL specified');
  }
  if (value.content.length === 0) throw badRequest('file must be non-empty');
  if (value.content.length > bot.maxUploadBytes) throw tooLarge();
  return value;
}

function isImage(bytes: Buffer): boolean {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  return starts(0xff, 0xd8, 0xff) || starts(0x89, 0x50, 0x4e, 0x47) || starts(0x47, 0x49, 0x46, 0x38) || (starts(0x52, 0x49, 0x46, 0x46) && bytes.subarray(8, 12).toString('latin1') === 'WEBP');
}

function sent(bot: Bot, chat: TgChat, kind: 'text' | 'document' | 'photo', content: Record<string, unknown>, record: { text?: string; caption?: string; file?: UploadedFile }): MethodAnswer {
  bot.flood.take(chat.id, chat.type !== 'private');
  const messageId = bot.state.nextMessageId(chat);
  bot.state.sent.push({ message_id: messageId, chat_id: chat.id, kind, ...record, at: Date.now() });
  return { result: bot.state.messageJson(chat, bot.state.bot, messageId, content) };
}

export const METHODS: Record<string, Method> = {
  getme: (_call, bot) => ({ result: { ...bot.state.userJson(bot.state.bot), can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false } }),

  async getupdates({ params, gone }, bot) {
    const limit = Math.min(100, Math.max(1, params.int('limit') ?? 100));
    const timeout = Math.max(0, params.int('timeout') ?? 0);
    bot.queue.setAllowed(params.list('allowed_updates'));
    return { result: await bot.queue.getUpdates(params.int('offset'), limit, timeout, gone) };
  },

  setwebhook({ params }, bot) {
    const url = params.string('url') ?? '';
    if (url === '') return { result: bot.queue.deleteWebhook(false), description: 'Webhook was deleted' };
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw badRequest('bad webhook: Failed to resolve host: Name or service not known');
    }
    if (!bot.allowHttpWebhook) {
      if (parsed.protocol !== 'https:') throw badRequest('bad webhook: An HTTPS URL must be provided for webhook');
      if (parsed.port !== '' && !WEBHOOK_PORTS.has(parsed.port)) throw badRequest('bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443');
    }
    const secret = params.string('secret_token');
    if (secret !== undefined && !SECRET_TOKEN.test(secret)) throw badRequest('bad webhook: secret token contains unallowed characters');
    const maxConnections = params.int('max_connections') ?? 40;
    if (maxConnections < 1 || maxConnections > 100) throw badRequest('bad webhook: max_connections must be between 1 and 100');
    bot.queue.setAllowed(params.list('allowed_updates'));
    bot.queue.setWebhook({ url, secret: secret || undefined, maxConnections }, params.bool('drop_pending_updates') ?? false);
    return { result: true, description: 'Webhook was set' };
  },

  deletewebhook({ params }, bot) {
    const had = bot.queue.deleteWebhook(params.bool('drop_pending_updates') ?? false);
    return { result: true, description: had ? 'Webhook was deleted' : 'Webhook is already deleted' };
  },

  getwebhookinfo(_call, bot) {
    const hook = bot.queue.webhook;
    const error = bot.queue.lastError;
    return {
      result: {
        url: hook?.url ?? '',
        has_custom_certificate: false,
        pending_update_count: bot.queue.pendingCount,
        ...(hook ? { max_connections: hook.maxConnections, ip_address: '127.0.0.1' } : {}),
        ...(error ? { last_error_date: error.date, last_error_message: error.message } : {}),
      },
    };
  },

  getfile({ params }, bot) {
    const id = params.string('file_id');
    if (id === undefined || id === '') throw badRequest('file_id is empty');
    const file = bot.state.files.get(id);
    if (file === undefined) throw badRequest('invalid file_id');
    if (file.content.length > bot.maxDownloadBytes) throw badRequest('file is too big');
    return { result: { file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: file.content.length, file_path: bot.state.pathOf(file) } };
  },

  sendmessage({ params }, bot) {
    const chat = target(params, bot);
    const text = params.string('text') ?? '';
    if (text.trim() === '') throw badRequest('message text is empty');
    if (text.length > TEXT_MAX) throw badRequest('message is too long');
    return sent(bot, chat, 'text', { text }, { text });
  },

  senddocument({ params }, bot) {
    const chat = target(params, bot);
    const file = fileParam(params, 'document', bot);
    const text = caption(params);
    const stored = bot.state.addFile(file.content, 'documents', '');
    const document = bot.state.documentJson(stored, file.filename, file.contentType);
    return sent(bot, chat, 'document', { document, ...(text ? { caption: text } : {}) }, { file, ...(text ? { caption: text } : {}) });
  },

  sendphoto({ params }, bot) {
    const chat = target(params, bot);
    const file = fileParam(params, 'photo', bot);
    const text = caption(params);
    if (file.content.length > PHOTO_MAX_BYTES) throw badRequest('photo is too big');
    if (!isImage(file.content)) throw badRequest('IMAGE_PROCESS_FAILED');
    return sent(bot, chat, 'photo', { photo: bot.state.photoJson(file.content), ...(text ? { caption: text } : {}) }, { file, ...(text ? { caption: text } : {}) });
  },
};
