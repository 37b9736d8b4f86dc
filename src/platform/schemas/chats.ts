/**
 * Chats (spec 01): the fields the unified-messaging flow reads and the body
 * that ends a chat. The full chat surface is completed with the proxy layer.
 */
import { z } from 'zod';

export const CHAT_TYPES = ['operator', 'visitor', 'group', 'task', 'external'] as const;

export const Chat = z.looseObject({
  id: z.uuid(),
  created_at: z.string(),
  updated_at: z.string(),
  waiting_started_at: z.string().nullable(),
  is_ended: z.boolean(),
  ended_at: z.string().nullable(),
  room_id: z.uuid(),
  room_name: z.string(),
  room_organization_id: z.uuid(),
  chat_type: z.enum(CHAT_TYPES),
  message_count: z.number().int(),
  user_message_count: z.number().int(),
  visitor_message_count: z.number().int(),
  is_waiting: z.boolean(),
  is_pending: z.boolean(),
  duration: z.number().nullable(),
  active_duration: z.number().nullable(),
  messaging_channel: z.string().nullable(),
});
export type Chat = z.infer<typeof Chat>;

/** PATCH or PUT on an owned chat: `is_ended` must be present and true. */
export const EndChatRequest = z.strictObject({
  is_ended: z.literal(true, { error: 'is_ended must be true.' }),
});
