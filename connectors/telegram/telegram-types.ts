/**
 * The Bot API's objects the connector reads, as zod schemas
 * (https://core.telegram.org/bots/api#available-types): `Update`, `Message`,
 * `User`, `Chat`, the file kinds (`PhotoSize`, `Document`, `Video`, `Audio`,
 * `Voice`, `Animation`, `VideoNote`), `File`, and the answers of `getMe`,
 * `getWebhookInfo` and the send methods. Loose: Telegram adds fields with
 * every Bot API version, and a field the connector does not read must never
 * make an update unreadable. Only what the connector relies on is required.
 */
import { z } from 'zod';

export const TelegramUser = z.looseObject({
  id: z.number().int(),
  is_bot: z.boolean(),
  first_name: z.string(),
  last_name: z.string().optional(),
  username: z.string().optional(),
  language_code: z.string().optional(),
});
export type TelegramUser = z.infer<typeof TelegramUser>;

export const TelegramChat = z.looseObject({
  id: z.number().int(),
  type: z.string(),
  title: z.string().optional(),
  username: z.string().optional(),
});

/** What every file kind has (`file_size` may be missing: Telegram does not always know it). */
const fileFields = {
  file_id: z.string(),
  file_unique_id: z.string(),
  file_size: z.number().int().nonnegative().optional(),
};

export const PhotoSize = z.looseObject({ ...fileFields, width: z.number().int(), height: z.number().int() });
export type PhotoSize = z.infer<typeof PhotoSize>;

/** A document, video, audio, voice note, animation or video note: a file with an optional name and type. */
export const FileObject = z.looseObject({ ...fileFields, file_name: z.string().optional(), mime_type: z.string().optional() });
export type FileObject = z.infer<typeof FileObject>;

export const TelegramMessage = z.looseObject({
  message_id: z.number().int(),
  date: z.number().int(),
  chat: TelegramChat,
  from: TelegramUser.optional(),
  text: z.string().optional(),
  caption: z.string().optional(),
  photo: z.array(PhotoSize).optional(),
  document: FileObject.optional(),
  video: FileObject.optional(),
  audio: FileObject.optional(),
  voice: FileObject.optional(),
  animation: FileObject.optional(),
  video_note: FileObject.optional(),
  edit_date: z.number().int().optional(),
});
export type TelegramMessage = z.infer<typeof TelegramMessage>;

/** An update: its id and at most one of the optional kinds; the connector reads `message` and `edited_message`. */
export const TelegramUpdate = z.looseObject({
  update_id: z.number().int(),
  message: TelegramMessage.optional(),
  edited_message: TelegramMessage.optional(),
});
export type TelegramUpdate = z.infer<typeof TelegramUpdate>;

/**
 * getUpdates' result. Each element is read on its own later (an update the
 * connector cannot read is recorded as such, not a failed poll), so here only
 * its `update_id` must hold.
 */
export const UpdateList = z.array(z.looseObject({ update_id: z.number().int() }));

/** The update kinds the connector asks for (`allowed_updates` of getUpdates and setWebhook). */
export const ALLOWED_UPDATES = ['message', 'edited_message'] as const;

export const TelegramFile = z.looseObject({ ...fileFields, file_path: z.string().optional() });

/** getMe: the bot itself. */
export const BotUser = TelegramUser.extend({ username: z.string() });

/** What a send method answers: the message as sent (its id is the delivery's external id). */
export const SentMessage = z.looseObject({ message_id: z.number().int(), chat: TelegramChat });

/** getWebhookInfo: where Telegram posts, and its last failure to. */
export const WebhookInfo = z.looseObject({ url: z.string(), pending_update_count: z.number().int(), last_error_message: z.string().optional() });

/** setWebhook, deleteWebhook: `true`. */
export const TrueResult = z.literal(true);

/** The content kinds a message can have besides text, for the reason a message is skipped. */
export const CONTENT_KINDS = [
  'sticker', 'story', 'location', 'venue', 'contact', 'poll', 'dice', 'game', 'invoice', 'paid_media',
  'new_chat_members', 'left_chat_member', 'new_chat_title', 'new_chat_photo', 'pinned_message',
  'group_chat_created', 'supergroup_chat_created', 'migrate_to_chat_id', 'migrate_from_chat_id',
] as const;

/** The kind of a message without text or a file it can forward (`a sticker`), for a skip's reason. */
export function contentKindOf(message: Readonly<Record<string, unknown>>): string {
  const kind = CONTENT_KINDS.find((k) => message[k] !== undefined);
  return kind === undefined ? 'message of a kind the connector does not know' : `${kind.replaceAll('_', ' ')} message`;
}
