/**
 * Chats (spec 01, "Chat", "Decrypted chat" and the chat endpoints): the chat
 * resource, the decrypted-chat listing, the list filters and the body that
 * ends a chat.
 *
 * Requests are strict (unknown keys refused with their name); responses are
 * loose (unknown keys kept).
 */
import { z } from 'zod';
import { Paginated } from './pagination.ts';
import { isoDateTime, OpaqueObject, queryBoolean } from './request-fields.ts';

export const CHAT_TYPES = ['operator', 'visitor', 'group', 'task', 'external'] as const;

/**
 * "One of email, whatsapp, webchat" for a chat; unified messaging (spec 03)
 * creates chats with free-form channel names, so answers are read as any
 * string and these are the documented ones.
 */
export const MESSAGING_CHANNELS = ['email', 'whatsapp', 'webchat'] as const;

/** "Message types seen in chats" (not said to be exhaustive, so answers take any string). */
export const MESSAGE_TYPES = ['msg', 'join', 'leave', 'autosuggestion', 'tag_created', 'tag_deleted'] as const;

/** Active time after each message, for active_duration (spec 01, "Limits"). */
export const CHAT_ACTIVE_SECONDS = 60;

/** Default page size of the decrypted-chats listing (spec 01, "Limits"). */
export const DECRYPTED_CHATS_PAGE_SIZE = 20;

const dateTime = z.string();
const count = z.number().int();

/**
 * Spec 01, "Chat". The fields the gateway's own session flow reads are
 * required. The rest of the table is typed and checked when present but not
 * required, so an answer that leaves one out (older platforms, our fixtures)
 * is still read. Deprecated fields (token, legacy_conversation_state,
 * legacy_room_id) may be dropped by the platform, so they are optional too.
 */
export const Chat = z.looseObject({
  // Required: read by the session flow.
  id: z.uuid(),
  created_at: dateTime,
  updated_at: dateTime,
  /** When is_waiting last became true; null if it never did. */
  waiting_started_at: dateTime.nullable(),
  is_ended: z.boolean(),
  ended_at: dateTime.nullable(),
  room_id: z.uuid(),
  room_name: z.string(),
  room_organization_id: z.uuid(),
  chat_type: z.enum(CHAT_TYPES),
  /** Messages of type msg only. */
  message_count: count,
  user_message_count: count,
  visitor_message_count: count,
  is_waiting: z.boolean(),
  /** is_waiting and nobody of the users present. */
  is_pending: z.boolean(),
  /** Seconds from first to last message; null until ended. */
  duration: z.number().nullable(),
  /** Seconds counted active (60 s after each message); null until ended. */
  active_duration: z.number().nullable(),
  messaging_channel: z.string().nullable(),

  // Documented, checked when present.
  is_private: z.boolean().optional(),
  is_real_conversation: z.boolean().optional(),
  is_autosuggested: z.boolean().optional(),
  is_encrypted: z.boolean().optional(),
  /** Encrypted AES key of the messages; present only when is_encrypted is true. */
  encrypted_symmetric_key: z.string().nullable().optional(),
  has_messages: z.boolean().optional(),
  has_user_messages: z.boolean().optional(),
  has_visitor_messages: z.boolean().optional(),
  first_visitor_message_url: z.string().nullable().optional(),
  first_visitor_message_url_title: z.string().nullable().optional(),
  autosuggest_url: z.string().nullable().optional(),
  autosuggest_url_title: z.string().nullable().optional(),
  tag_count: count.optional(),
  member_count: count.optional(),
  user_member_count: count.optional(),
  visitor_member_count: count.optional(),
  present_participant_count: count.optional(),
  present_user_participant_count: count.optional(),
  present_visitor_participant_count: count.optional(),
  /** Seconds the visitor waited for the first answer; null until answered. */
  visitor_wait_time: z.number().nullable().optional(),

  // Deprecated, to be avoided.
  token: z.string().nullable().optional(),
  legacy_conversation_state: z.string().nullable().optional(),
  legacy_room_id: z.string().nullable().optional(),
});
export type Chat = z.infer<typeof Chat>;

export const ChatPage = Paginated(Chat);

/**
 * PATCH or PUT on an owned chat: `is_ended` must be present and true (400
 * "required attribute missing" otherwise). The chat table also marks
 * is_waiting editable, but the endpoint documents only is_ended and no
 * transition of is_waiting ("not shown"), so it is refused like any other
 * field.
 */
export const EndChatRequest = z.strictObject({
  is_ended: z.literal(true, { error: 'is_ended must be true.' }),
});
export type EndChatRequest = z.input<typeof EndChatRequest>;

// ─── Listing filters ────────────────────────────────────────────────────────

/**
 * The document says both "sorted by creation time descending by default" and
 * "ordering default created_at"; no default is filled in, so the platform's
 * own applies.
 */
export const CHAT_ORDERINGS = ['created_at', '-created_at'] as const;

const cursor = z.string().min(1, { error: 'cursor may not be blank.' });

/** GET …/rooms/<room_id>/chats and …/owned_chats. `cursor` walks the pages (spec 01, "Pagination"). */
export const ChatListQuery = z.strictObject({
  ordering: z.enum(CHAT_ORDERINGS, { error: 'ordering must be created_at or -created_at.' }).optional(),
  is_waiting: queryBoolean.optional(),
  is_ended: queryBoolean.optional(),
  has_messages: queryBoolean.optional(),
  has_user_messages: queryBoolean.optional(),
  has_visitor_messages: queryBoolean.optional(),
  created_at_after: isoDateTime.optional(),
  created_at_before: isoDateTime.optional(),
  cursor: cursor.optional(),
});
export type ChatListQuery = z.input<typeof ChatListQuery>;

/** A page size in a query string: a positive integer (no maximum is documented), sent as text. */
const pageSize = z
  .union([z.number().int(), z.string().regex(/^\d+$/)], { error: 'A valid integer is required.' })
  .transform((v) => Number(v))
  .pipe(z.number().min(1, { error: 'Ensure this value is greater than or equal to 1.' }))
  .transform((v) => String(v));

/**
 * GET …/rooms/<room_id>/decrypted-chats. Besides the query, the request
 * needs the X-PRIVATE-KEY header (the RSA private key on one line).
 */
export const DecryptedChatListQuery = z.strictObject({
  created_at_after: isoDateTime.optional(),
  created_at_before: isoDateTime.optional(),
  /** Default 20. */
  limit: pageSize.optional(),
  cursor: cursor.optional(),
});
export type DecryptedChatListQuery = z.input<typeof DecryptedChatListQuery>;

/** The header carrying the private key of the decrypted-chats listing. */
export const PRIVATE_KEY_HEADER = 'x-private-key';

// ─── Decrypted chats ────────────────────────────────────────────────────────

/** Spec 01, "Decrypted chat": each message. Further fields of a decrypted message: not shown (kept). */
export const DecryptedMessage = z.looseObject({
  id: z.uuid(),
  type: z.string(),
  chat_id: z.uuid(),
  created_at: dateTime,
  sender_id: z.string(),
  /** visitor or user. */
  sender_type: z.string(),
  sender_name: z.string().nullable(),
  /** The decrypted text. */
  content: z.string(),
  is_encrypted: z.boolean(),
  encrypted_message: z.string().nullable(),
});
export type DecryptedMessage = z.infer<typeof DecryptedMessage>;

/** Spec 01, "Decrypted chat": a subset of the chat fields plus its messages. */
export const DecryptedChat = z.looseObject({
  id: z.uuid(),
  created_at: dateTime,
  updated_at: dateTime,
  ended_at: dateTime.nullable(),
  room_id: z.uuid(),
  room_organization_id: z.uuid(),
  room_name: z.string(),
  message_count: count,
  is_encrypted: z.boolean(),
  messages: z.array(DecryptedMessage),
});
export type DecryptedChat = z.infer<typeof DecryptedChat>;

/** The decrypted-chat listing also carries count. */
export const DecryptedChatPage = Paginated(DecryptedChat).extend({ count });

// ─── Creating chats ─────────────────────────────────────────────────────────

/**
 * POST /api/v5/users/<user_id>/chats (an empty chat; its type becomes
 * operator). Only the messaging_channel field is documented ("One of email,
 * whatsapp, webchat"; another value is refused): "paths, payloads and
 * responses beyond that: not shown", so any other field is passed on and the
 * answer is any object.
 */
export const CreateEmptyChatRequest = z.looseObject({
  messaging_channel: z.enum(MESSAGING_CHANNELS, { error: `messaging_channel must be one of: ${MESSAGING_CHANNELS.join(', ')}.` }).optional(),
});
export type CreateEmptyChatRequest = z.input<typeof CreateEmptyChatRequest>;

/** The answer of a chat creation: not shown. */
export const CreateEmptyChatResponse = OpaqueObject;
