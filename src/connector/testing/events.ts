/**
 * Typed builders of the platform's webhook events, for a connector's tests:
 * every field the documents list, each one overridable, checked by the same
 * schemas the gateway reads webhooks with — so an event built here is one the
 * gateway could hand to `deliver`, and no `as unknown as WebhookEvent` is
 * needed.
 *
 *   await instance.deliver(messageCreated({ threadId: 'desk:T-1', text: 'On it', files: [fileAttachment('a.pdf')] }), thread, ctx);
 */
import { randomUUID } from 'node:crypto';
import {
  MessageCreatedEvent,
  ReplySuggestionCreatedEvent,
  type MessageAttachment,
} from '../../platform/schemas/unified-messaging.ts';

interface EnvelopeFields {
  /** The gateway's thread id, `<connector>:<thread key>` for a thread the gateway made. */
  threadId: string;
  chatId?: string;
  roomId?: string;
  channelConfigId?: string;
  /** Default: the connector type's channel, `webhook`. */
  messagingChannel?: string;
  /** ISO 8601; default now. */
  createdAt?: string;
}

export interface MessageFields extends EnvelopeFields {
  messageId?: string;
  text?: string;
  /** The agent's user id (a UUID) and names. */
  senderId?: string;
  senderName?: string;
  senderPublicName?: string;
  /** Files and images (`fileAttachment`, `imageAttachment`), or anything a platform might send. */
  files?: readonly (MessageAttachment | Record<string, unknown>)[];
}

export interface SuggestionFields extends EnvelopeFields {
  suggestionId?: string;
  suggestion?: string;
  /** The customer's message the suggestion answers. */
  messageId?: string | null;
  relevancyScore?: number | null;
  organizationId?: string;
  userId?: string | null;
}

/** The fields every event has, around what it carries. */
function envelope(eventType: string, f: EnvelopeFields, chatId: string) {
  return { event_type: eventType, thread_id: f.threadId, chat_id: chatId, messaging_channel: f.messagingChannel ?? 'webhook', channel_config_id: f.channelConfigId ?? randomUUID() };
}

/** A `message_created` event: an agent wrote in the chat. */
export function messageCreated(f: MessageFields): MessageCreatedEvent {
  const chatId = f.chatId ?? randomUUID();
  return MessageCreatedEvent.parse({
    ...envelope('message_created', f, chatId),
    message: {
      id: f.messageId ?? randomUUID(),
      type: 'msg',
      chat_id: chatId,
      room_id: f.roomId ?? randomUUID(),
      created_at: f.createdAt ?? new Date().toISOString(),
      sender_type: 'user',
      sender_id: f.senderId ?? randomUUID(),
      sender_public_name: f.senderPublicName ?? f.senderName ?? 'Sam',
      sender_name: f.senderName ?? 'Sam Agent',
      sender_avatar: null,
      message: f.text ?? 'Hi there',
      is_encrypted: false,
      is_edited: false,
      sensitive_data_purged_at: null,
      selected_reply_suggestion_id: null,
      selected_reply_suggestion: null,
      attachments: [...(f.files ?? [])],
      attachment_template: null,
      response_to_message_id: null,
      response_to_attachment_id: null,
      response_to_action_id: null,
      response_to_attachment: null,
      response_to_action: null,
      response_text: null,
      response_value: null,
    },
  });
}

/** A `reply_suggestion_created` event: the platform suggests an answer to the agent. */
export function replySuggestionCreated(f: SuggestionFields): ReplySuggestionCreatedEvent {
  const chatId = f.chatId ?? randomUUID();
  const at = f.createdAt ?? new Date().toISOString();
  return ReplySuggestionCreatedEvent.parse({
    ...envelope('reply_suggestion_created', f, chatId),
    reply_suggestion: {
      id: f.suggestionId ?? randomUUID(),
      created_by_user_id: f.userId ?? null,
      created_by_user: null,
      updated_by_user_id: null,
      updated_by_user: null,
      chat_id: chatId,
      message_id: f.messageId ?? null,
      room_id: f.roomId ?? randomUUID(),
      organization_id: f.organizationId ?? randomUUID(),
      created_at: at,
      updated_at: at,
      suggestion: f.suggestion ?? 'Say sorry',
      relevancy_score: f.relevancyScore ?? null,
      target_organization: null,
    },
  });
}

/** A file attached to an agent's message (`size` in bytes, optional as in the documents). */
export function fileAttachment(name: string, options: { url?: string; size?: number } = {}): MessageAttachment {
  return { type: 'file', name, url: options.url ?? `https://files.platform.example/${encodeURIComponent(name)}`, ...(options.size === undefined ? {} : { size: options.size }) };
}

/** An image attached to an agent's message. */
export function imageAttachment(url = `https://files.platform.example/${randomUUID()}.png`): MessageAttachment {
  return { type: 'image', url };
}
