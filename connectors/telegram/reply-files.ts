/**
 * An agent's files, outward. Each file and image of the reply is fetched
 * from the platform with `ctx.attachments.fetch` (at most
 * `attachments.max_file_bytes`, and what is left of `max_message_bytes`) and
 * uploaded as multipart/form-data after the text, one message each:
 *
 * - an image (`type: image`) in JPEG, PNG or WebP of at most 10 MB with
 *   sendPhoto, Telegram's limit for photos — shown inline; should Telegram
 *   not take it as a photo (its dimensions), it goes with sendDocument;
 * - anything else with sendDocument, under its own name (Telegram takes up
 *   to 50 MB from a bot).
 *
 * A file that cannot go is named under the text, and the reply still goes:
 *
 *   [attachment not sent: backup.zip — over the 10.0 MB limit per file]
 *   [attachment not sent: old.pdf — the platform did not hand it out (TG_ATTACHMENT_UNAVAILABLE)]
 *
 * A fetch that fails for now fails the attempt (retried). On a later
 * attempt a file is fetched again; one that can no longer be fetched, or
 * that Telegram refuses, is sent as such a line in its place.
 */
import {
  AttachmentTooLargeError,
  formatSize,
  unfetchableReason,
  type AttachmentFetcher,
  type FetchedAttachment,
  type MessageAttachment,
} from '../../src/connector/api.ts';
import type { BotApi } from './bot-api.ts';
import type { TelegramAttachmentSettings } from './config.ts';
import { TelegramRequestRefusedError } from './errors.ts';
import type { FileWay, ReplyPlan } from './reply-progress.ts';
import { SentMessage } from './telegram-types.ts';

/** sendPhoto takes photos of at most 10 MB (https://core.telegram.org/bots/api#sendphoto). */
export const PHOTO_MAX_BYTES = 10 * 1024 * 1024;
const PHOTO_TYPES = /^image\/(?:jpeg|png|webp)(?:;|$)/i;

/** How an attachment is named in a line: a file's name, an image's last path segment. */
export function attachmentName(attachment: MessageAttachment): string {
  if (attachment.type === 'file') return attachment.name;
  try {
    return decodeURIComponent(new URL(attachment.url).pathname.split('/').pop() || 'image');
  } catch {
    return 'image';
  }
}

export const notSent = (name: string, why: string): string => `[attachment not sent: ${name} — ${why}]`;

/** Why `err` keeps a file from the reply, or undefined for a failure that may pass (thrown). */
function whyNot(err: unknown, limits: TelegramAttachmentSettings, budget: number): string | undefined {
  if (err instanceof AttachmentTooLargeError) return overLimit(limits, budget);
  return unfetchableReason(err);
}

function overLimit(limits: TelegramAttachmentSettings, budget: number): string {
  return budget < limits.max_file_bytes ? `over the ${formatSize(limits.max_message_bytes)} limit per message` : `over the ${formatSize(limits.max_file_bytes)} limit per file`;
}

/** The way a fetched file goes. */
export function wayOf(attachment: MessageAttachment, file: FetchedAttachment): FileWay {
  return attachment.type === 'image' && PHOTO_TYPES.test(file.contentType) && file.content.length <= PHOTO_MAX_BYTES ? 'photo' : 'document';
}

export interface PlannedFiles {
  plan: ReplyPlan;
  /** The fetched files of the plan, by index. */
  fetched: Map<number, FetchedAttachment>;
}

/** Fetches every file of the reply within the limits; names those that cannot go. */
export async function planFiles(attachments: readonly MessageAttachment[], fetcher: AttachmentFetcher, limits: TelegramAttachmentSettings, signal: AbortSignal): Promise<PlannedFiles> {
  const plan: ReplyPlan = { notes: [], files: [] };
  const fetched = new Map<number, FetchedAttachment>();
  let budget = limits.max_message_bytes;
  for (const [index, attachment] of attachments.entries()) {
    const name = attachmentName(attachment);
    const cap = Math.min(limits.max_file_bytes, budget);
    if (cap <= 0 || (attachment.type === 'file' && typeof attachment.size === 'number' && attachment.size > cap)) {
      plan.notes.push(notSent(name, overLimit(limits, budget)));
      continue;
    }
    try {
      const file = await fetcher.fetch(attachment, { maxBytes: cap, signal });
      // The fetcher caps the download; a fetcher that did not is held to the limit all the same.
      if (file.content.length > cap) {
        plan.notes.push(notSent(name, overLimit(limits, budget)));
        continue;
      }
      budget -= file.content.length;
      fetched.set(index, file);
      plan.files.push({ index, as: wayOf(attachment, file) });
    } catch (err) {
      const why = whyNot(err, limits, budget);
      if (why === undefined) throw err;
      plan.notes.push(notSent(name, why));
    }
  }
  return { plan, fetched };
}

/** A planned file fetched again (a later attempt), or the line to send in its place when it can no longer be. */
export async function fetchAgain(attachment: MessageAttachment, fetcher: AttachmentFetcher, limits: TelegramAttachmentSettings, signal: AbortSignal): Promise<FetchedAttachment | string> {
  try {
    return await fetcher.fetch(attachment, { maxBytes: limits.max_file_bytes, signal });
  } catch (err) {
    const why = whyNot(err, limits, limits.max_file_bytes);
    if (why === undefined) throw err;
    return notSent(attachmentName(attachment), why);
  }
}

/**
 * Uploads `file` to the chat as `way`; resolves the message id. A photo
 * Telegram will not take as one goes as a document; a document it refuses
 * for good (a 4xx) is answered as a line to send instead.
 */
export async function sendFile(api: BotApi, chatId: number, file: FetchedAttachment, way: FileWay, signal: AbortSignal): Promise<number | string> {
  const upload = (as: FileWay) =>
    api.upload(as === 'photo' ? 'sendPhoto' : 'sendDocument', { chat_id: chatId }, { field: as, filename: file.filename, contentType: file.contentType, content: file.content }, SentMessage, signal);
  try {
    return (await upload(way)).message_id;
  } catch (err) {
    if (!(err instanceof TelegramRequestRefusedError)) throw err;
    if (way === 'photo') return sendFile(api, chatId, file, 'document', signal);
    return notSent(file.filename, `Telegram refused it: ${err.answer.description}`);
  }
}
