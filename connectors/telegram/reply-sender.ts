/**
 * `deliver`: an agent's reply into the customer's Telegram chat.
 *
 *   message_created   → sendMessage for the text, cut at 4096 characters (text-split.ts),
 *                       then sendPhoto / sendDocument for each file (reply-files.ts)
 *   reply_suggestion  → { skipped }: Telegram has no drafts, the customer would see it
 *
 * The chat is the thread's key (the chat id the customer wrote from); a
 * group that became a supergroup is followed to its new id (Telegram's
 * `migrate_to_chat_id`, remembered in the state as `moved:<old id>`). Text is
 * sent as plain text (no parse_mode), so nothing an agent writes is taken
 * for markup.
 *
 * Exactly once: what was sent of each reply is written to the state after
 * every part (reply-progress.ts), and every attempt resumes after the last
 * part written — the same event delivered twice, a retry after a failed
 * part, an operator's replay. `externalId` is the Telegram message ids of
 * the parts, in order (`812,813`). Errors are errors.ts's: a blocked bot or
 * a chat Telegram does not know dead-letters with Telegram's words, a 429
 * waits `retry_after`, anything that may pass is retried.
 */
import {
  knownAttachments,
  type ConnectorContext,
  type DeliverContext,
  type DeliverResult,
  type FetchedAttachment,
  type MessageAttachment,
  type Thread,
  type WebhookEvent,
} from '../../src/connector/api.ts';
import type { BotApi } from './bot-api.ts';
import type { BotStatus } from './bot-status.ts';
import type { TelegramAttachmentSettings } from './config.ts';
import { TelegramChatMigratedError, TelegramThreadUnknownError } from './errors.ts';
import { chatIdOf } from './inbound-update.ts';
import { fetchAgain, planFiles, sendFile } from './reply-files.ts';
import { progressKey, ReplyLedger, type ReplyProgress } from './reply-progress.ts';
import { SentMessage } from './telegram-types.ts';
import { splitText } from './text-split.ts';

export const SUGGESTION_SKIPPED = 'Telegram has no drafts: a reply suggestion would reach the customer, so it is not sent';
export const NOTHING_TO_SEND = 'the reply has neither text nor a file to send';
const MOVED_PREFIX = 'moved:';

export interface ReplySenderDeps {
  ctx: Pick<ConnectorContext, 'attachments' | 'state' | 'logger'>;
  api: BotApi;
  status: BotStatus;
  limits: TelegramAttachmentSettings;
}

/** The chat a reply goes to: the thread's, or where it moved. */
interface Chat {
  /** The id the thread was opened with (its key). */
  key: number;
  id: number;
}

/** The reply's text with the lines naming files that are not sent under it. */
export function withNotes(text: string, notes: readonly string[]): string {
  if (notes.length === 0) return text;
  return text.trim() === '' ? notes.join('\n') : `${text}\n\n${notes.join('\n')}`;
}

export class ReplySender {
  readonly #deps: ReplySenderDeps;
  readonly #ledger: ReplyLedger;

  constructor(deps: ReplySenderDeps) {
    this.#deps = deps;
    this.#ledger = new ReplyLedger(deps.ctx.state);
  }

  async deliver(event: WebhookEvent, thread: Thread | undefined, context: DeliverContext): Promise<DeliverResult> {
    if (event.event_type === 'reply_suggestion_created') return { skipped: SUGGESTION_SKIPPED };
    const { signal } = context;
    const chat = await this.#chatOf(thread);
    const key = progressKey(event);
    const attachments = knownAttachments(event.message.attachments);
    let progress = await this.#ledger.get(key);
    let fetched = new Map<number, FetchedAttachment>();
    if (progress === undefined) {
      const planned = await planFiles(attachments, this.#deps.ctx.attachments, this.#deps.limits, signal);
      progress = { ...planned.plan, sent: [] };
      fetched = planned.fetched;
    }
    const texts = splitText(withNotes(event.message.message, progress.notes));
    const total = texts.length + progress.files.length;
    if (total === 0) return { skipped: NOTHING_TO_SEND };
    if (progress.sent.length > 0) this.#deps.ctx.logger.debug({ key, sent: progress.sent.length, total, attempt: context.attempt }, 'reply partly or wholly sent before: resuming after what Telegram has');
    try {
      for (let part = progress.sent.length; part < total; part += 1) {
        const text = texts[part];
        const id = text !== undefined ? await this.#sendText(chat, text, signal) : await this.#sendFilePart(chat, progress, part - texts.length, attachments, fetched, signal);
        progress.sent.push(id);
        await this.#ledger.save(key, progress);
      }
    } catch (err) {
      this.#deps.status.deliveryFailed(err);
      throw err;
    }
    if (this.#deps.status.tokenRefused) this.#deps.status.succeeded();
    await this.#ledger.prune().catch((err: unknown) => this.#deps.ctx.logger.warn({ err }, 'pruning old reply records failed (tried again in an hour)'));
    return { externalId: progress.sent.join(',') };
  }

  async #chatOf(thread: Thread | undefined): Promise<Chat> {
    if (thread === undefined) throw new TelegramThreadUnknownError('the gateway has no record of this thread, so it knows no Telegram chat to send the reply to');
    const key = chatIdOf(thread.key);
    if (key === undefined) throw new TelegramThreadUnknownError(`the thread's key is no Telegram chat id (${thread.key.slice(0, 40)})`);
    const moved = await this.#deps.ctx.state.get<number>(`${MOVED_PREFIX}${key}`);
    return { key, id: typeof moved === 'number' ? moved : key };
  }

  async #sendText(chat: Chat, text: string, signal: AbortSignal): Promise<number> {
    return this.#inChat(chat, async (chatId) => (await this.#deps.api.call('sendMessage', { chat_id: chatId, text }, SentMessage, signal)).message_id);
  }

  async #sendFilePart(chat: Chat, progress: ReplyProgress, fileIndex: number, attachments: readonly MessageAttachment[], fetched: Map<number, FetchedAttachment>, signal: AbortSignal): Promise<number> {
    const planned = progress.files[fileIndex]!;
    const attachment = attachments[planned.index];
    const file = fetched.get(planned.index) ?? (attachment === undefined ? '[attachment not sent: it is no longer in the message]' : await fetchAgain(attachment, this.#deps.ctx.attachments, this.#deps.limits, signal));
    if (typeof file === 'string') return this.#sendText(chat, file, signal);
    const sent = await this.#inChat(chat, (chatId) => sendFile(this.#deps.api, chatId, file, planned.as, signal));
    return typeof sent === 'string' ? this.#sendText(chat, sent, signal) : sent;
  }

  /** Runs `send` in the chat; when Telegram says the group moved to a supergroup, remembers it and sends there. */
  async #inChat<T>(chat: Chat, send: (chatId: number) => Promise<T>): Promise<T> {
    try {
      return await send(chat.id);
    } catch (err) {
      if (!(err instanceof TelegramChatMigratedError) || err.migrateToChatId === chat.id) throw err;
      this.#deps.ctx.logger.info({ chat: chat.key, to: err.migrateToChatId }, 'the group became a supergroup: replies go to its new chat id');
      await this.#deps.ctx.state.set(`${MOVED_PREFIX}${chat.key}`, err.migrateToChatId);
      chat.id = err.migrateToChatId;
      return send(chat.id);
    }
  }
}
