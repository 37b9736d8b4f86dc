/**
 * A `message_created` webhook envelope with every field spec 03 lists, for
 * tests and benchmarks that play the platform's side by hand. The sandbox
 * builds the real ones (src/sandbox/webhook-envelopes.ts).
 */
import { randomUUID } from 'node:crypto';
import type { MessageCreatedEvent } from '../../src/platform/schemas/unified-messaging.ts';

export interface MessageCreatedFields {
  threadId: string;
  chatId?: string;
  roomId?: string;
  configId?: string;
  messagingChannel?: string;
  messageId?: string;
  text?: string;
  senderId?: string;
  senderName?: string;
  createdAt?: string;
  /** The message's `attachments` (files and images as `MessageAttachment`, or anything a platform could send); default []. */
  attachments?: unknown[];
}

export function messageCreatedEnvelope(f: MessageCreatedFields): MessageCreatedEvent {
  const chatId = f.chatId ?? randomUUID();
  return {
    event_type: 'message_created',
    thread_id: f.threadId,
    chat_id: chatId,
    messaging_channel: f.messagingChannel ?? 'webhook',
    channel_config_id: f.configId ?? randomUUID(),
    message: {
      id: f.messageId ?? randomUUID(),
      type: 'msg',
      chat_id: chatId,
      room_id: f.roomId ?? randomUUID(),
      created_at: f.createdAt ?? new Date().toISOString(),
      sender_type: 'user',
      sender_id: f.senderId ?? randomUUID(),
      sender_public_name: f.senderName ?? 'Sam',
      sender_name: f.senderName ?? 'Sam Agent',
      sender_avatar: null,
      message: f.text ?? 'Hi there',
      is_encrypted: false,
      is_edited: false,
      sensitive_data_purged_at: null,
      selected_reply_suggestion_id: null,
      selected_reply_suggestion: null,
      attachments: f.attachments ?? [],
      attachment_template: null,
      response_to_message_id: null,
      response_to_attachment_id: null,
      response_to_action_id: null,
      response_to_attachment: null,
      response_to_action: null,
      response_text: null,
      response_value: null,
    },
  };
}
