/**
 * What one Telegram update becomes, the same for polling and webhook mode:
 *
 * | update                                              | becomes                                              |
 * |-----------------------------------------------------|------------------------------------------------------|
 * | `message` in a private chat, with text or a file    | `ctx.submit`: thread = the chat id, from its sender  |
 * | `message` in a group or supergroup, allow_groups    | the same: one thread per group, each member a sender |
 * | `message` in a group, allow_groups: false           | skipped, TG_TELEGRAM_GROUP_CHAT                      |
 * | `/start` in a private chat (opening the bot)        | skipped, TG_TELEGRAM_START_COMMAND                   |
 * | a message of another bot                            | skipped, TG_TELEGRAM_FROM_BOT                        |
 * | a sticker, location, contact, poll, service message | skipped, TG_TELEGRAM_UNSUPPORTED_MESSAGE (the kind)  |
 * | `edited_message`                                    | skipped, TG_TELEGRAM_EDITED_MESSAGE                  |
 * | a channel post, any other kind                      | ignored (nothing recorded)                           |
 *
 * A submitted message: `messageId` `<chat id>:<message_id>` (stable, so a
 * re-read update is a duplicate), `senderId` `telegram:<user id>`,
 * `senderName` the user's first and last name, visitor variables
 * `telegram_user_id` and `telegram_username` (the name goes as `name`), and
 * as body the text — or the caption with the file's line (inbound-files.ts).
 * A skip never carries the message's text, only its kind and ids.
 */
import type { ConnectorContext, SubmitMessage } from '../../src/connector/api.ts';
import type { TelegramAttachmentSettings } from './config.ts';
import type { BotApi } from './bot-api.ts';
import { fileLine, fileOf, withFileLine } from './inbound-files.ts';
import { contentKindOf, TelegramUpdate, type TelegramMessage, type TelegramUser } from './telegram-types.ts';

export const SKIP_CODES = {
  group: 'TG_TELEGRAM_GROUP_CHAT',
  start: 'TG_TELEGRAM_START_COMMAND',
  bot: 'TG_TELEGRAM_FROM_BOT',
  unsupported: 'TG_TELEGRAM_UNSUPPORTED_MESSAGE',
  edited: 'TG_TELEGRAM_EDITED_MESSAGE',
} as const;

export type UpdateOutcome = 'submitted' | 'duplicate' | 'skipped' | 'ignored';

export interface UpdateHandlerOptions {
  allowGroups: boolean;
  attachments: TelegramAttachmentSettings;
}

/** `/start` or `/start <payload>`, also addressed (`/start@acme_bot`): what Telegram sends when a user opens the bot. */
const START = /^\/start(?:@\w+)?(?:\s|$)/;

/** The thread key of a Telegram chat (its id), and back. */
export const threadKeyOf = (chatId: number): string => String(chatId);
export function chatIdOf(threadKey: string): number | undefined {
  return /^-?\d{1,20}$/.test(threadKey) && Number.isSafeInteger(Number(threadKey)) ? Number(threadKey) : undefined;
}

/** The visitor id of a Telegram user. */
export const senderIdOf = (user: TelegramUser): string => `telegram:${user.id}`;

export class UpdateHandler {
  readonly #ctx: Pick<ConnectorContext, 'submit' | 'skip' | 'files'>;
  readonly #api: BotApi;
  readonly #options: UpdateHandlerOptions;

  constructor(ctx: Pick<ConnectorContext, 'submit' | 'skip' | 'files'>, api: BotApi, options: UpdateHandlerOptions) {
    this.#ctx = ctx;
    this.#api = api;
    this.#options = options;
  }

  /**
   * Handles one update (as Telegram sent it); resolves once what it became is
   * stored. Throws when it cannot be handled now (the file download or the
   * store failed): the caller keeps it and tries again. An update that is no
   * Update at all throws `TypeError` naming the field.
   */
  async handle(raw: unknown, signal: AbortSignal): Promise<UpdateOutcome> {
    const parsed = TelegramUpdate.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new TypeError(`not a Telegram update: ${issue?.path.join('.') || '(update)'}: ${issue?.message ?? 'invalid'}`);
    }
    const update = parsed.data;
    if (update.message) return this.#message(update.message, signal);
    if (update.edited_message) return this.#edited(update.edited_message);
    return 'ignored';
  }

  async #message(message: TelegramMessage, signal: AbortSignal): Promise<UpdateOutcome> {
    const chat = message.chat;
    const group = chat.type === 'group' || chat.type === 'supergroup';
    if (!group && chat.type !== 'private') return 'ignored';
    const messageId = `${chat.id}:${message.message_id}`;
    const from = message.from;
    const skip = (code: string, reason: string) => this.#skip({ messageId, code, reason, ...(from ? { senderId: senderIdOf(from) } : {}), summary: `message ${message.message_id} in chat ${chat.id}` });
    if (group && !this.#options.allowGroups) return skip(SKIP_CODES.group, `a message in the ${chat.type} “${chat.title ?? chat.id}”: group chats are not posted (allow_groups: false)`);
    if (from === undefined) return skip(SKIP_CODES.unsupported, 'a message without a sender');
    if (from.is_bot) return skip(SKIP_CODES.bot, `a message of the bot @${from.username ?? from.id}`);
    const text = message.text ?? message.caption ?? '';
    if (!group && START.test(text)) return skip(SKIP_CODES.start, 'the /start Telegram sends when a user opens the bot');
    const file = fileOf(message);
    if (file === undefined && text.trim() === '') return skip(SKIP_CODES.unsupported, `a ${contentKindOf(message)}: only text, photos and files are posted`);
    const line = file === undefined ? undefined : await fileLine(file, { api: this.#api, files: this.#ctx.files, limits: this.#options.attachments }, signal);
    const senderName = [from.first_name, from.last_name].filter((part) => part !== undefined && part.trim() !== '').join(' ');
    const submit: SubmitMessage = {
      threadKey: threadKeyOf(chat.id),
      messageId,
      senderId: senderIdOf(from),
      body: withFileLine(text, line),
      variables: { telegram_user_id: String(from.id), telegram_username: from.username ?? null },
    };
    if (senderName !== '') submit.senderName = senderName;
    const result = await this.#ctx.submit(submit);
    return result.duplicate ? 'duplicate' : 'submitted';
  }

  /** An edit: the platform keeps the message as first sent; the edit is recorded, once per edit. */
  async #edited(message: TelegramMessage): Promise<UpdateOutcome> {
    const chat = message.chat;
    if (chat.type !== 'private' && !(this.#options.allowGroups && (chat.type === 'group' || chat.type === 'supergroup'))) return 'ignored';
    return this.#skip({
      messageId: `${chat.id}:${message.message_id}:edited:${message.edit_date ?? message.date}`,
      code: SKIP_CODES.edited,
      reason: `message ${message.message_id} was edited in Telegram; the platform keeps the message as first sent`,
      ...(message.from ? { senderId: senderIdOf(message.from) } : {}),
      summary: `edit of message ${message.message_id} in chat ${chat.id}`,
    });
  }

  async #skip(record: Parameters<ConnectorContext['skip']>[0]): Promise<UpdateOutcome> {
    await this.#ctx.skip(record);
    return 'skipped';
  }
}
