/**
 * The two webhook envelopes of spec 03 (message_created and
 * reply_suggestion_created) with every field the spec lists. Attachments are
 * the files an agent attached through the control API (message-files.ts), with
 * URLs absolute on `origin`; the sandbox has no buttons, encryption or edits,
 * so those fields carry their empty values.
 */
import type {
  MessageCreatedEvent,
  ReplySuggestion,
  ReplySuggestionCreatedEvent,
  WebhookMessage,
} from '../platform/schemas/unified-messaging.ts';
import { attachmentViews } from './message-files.ts';
import type { ChannelConfigurationRecord, ChatLink, ChatRecord, MessageRecord, ReplySuggestionRecord, User } from './model.ts';
import type { SandboxState } from './state.ts';
import { iso } from './time.ts';

/** The user object nested in a reply suggestion. */
function userObject(user: User | undefined): Record<string, unknown> | null {
  if (!user) return null;
  return {
    id: user.id,
    organization_id: user.organizationId,
    full_name: user.name,
    alias: user.publicName,
    avatar: null,
    is_bot: false,
  };
}

export function replySuggestionView(state: SandboxState, s: ReplySuggestionRecord): ReplySuggestion {
  const author = userObject(state.users.get(s.createdByUserId));
  return {
    id: s.id,
    created_by_user_id: s.createdByUserId,
    created_by_user: author,
    updated_by_user_id: s.createdByUserId,
    updated_by_user: author,
    chat_id: s.chatId,
    message_id: s.messageId,
    room_id: s.roomId,
    organization_id: s.organizationId,
    created_at: iso(s.createdAt),
    updated_at: iso(s.updatedAt),
    suggestion: s.suggestion,
    relevancy_score: s.relevancyScore,
    target_organization: null,
  };
}

/** `origin`: the sandbox's address as the request that made or reads the message reached it (for attachment URLs). */
export function webhookMessageView(state: SandboxState, chat: ChatRecord, m: MessageRecord, origin: string): WebhookMessage {
  const selected = m.selectedReplySuggestionId === null ? undefined : state.suggestions.get(m.selectedReplySuggestionId);
  return {
    id: m.id,
    type: m.type,
    chat_id: m.chatId,
    room_id: chat.roomId,
    created_at: iso(m.createdAt),
    sender_type: m.senderType,
    sender_id: m.senderId,
    sender_public_name: m.senderPublicName,
    sender_name: m.senderName,
    sender_avatar: null,
    message: m.text,
    is_encrypted: false,
    is_edited: false,
    sensitive_data_purged_at: null,
    selected_reply_suggestion_id: m.selectedReplySuggestionId,
    selected_reply_suggestion: selected ? replySuggestionView(state, selected) : null,
    attachments: attachmentViews(m.attachments, origin),
    attachment_template: null,
    response_to_message_id: null,
    response_to_attachment_id: null,
    response_to_action_id: null,
    response_to_attachment: null,
    response_to_action: null,
    response_text: null,
    response_value: null,
  };
}

/** Fields in the order spec 03 lists them: event_type, thread_id, chat_id, payload, messaging_channel, channel_config_id. */
export function messageCreatedEvent(
  state: SandboxState,
  link: ChatLink,
  chat: ChatRecord,
  config: ChannelConfigurationRecord,
  message: MessageRecord,
  origin: string,
): MessageCreatedEvent {
  return {
    event_type: 'message_created',
    thread_id: link.threadId,
    chat_id: chat.id,
    message: webhookMessageView(state, chat, message, origin),
    messaging_channel: config.messagingChannel,
    channel_config_id: config.id,
  };
}

export function replySuggestionCreatedEvent(
  state: SandboxState,
  link: ChatLink,
  chat: ChatRecord,
  config: ChannelConfigurationRecord,
  suggestion: ReplySuggestionRecord,
): ReplySuggestionCreatedEvent {
  return {
    event_type: 'reply_suggestion_created',
    thread_id: link.threadId,
    chat_id: chat.id,
    reply_suggestion: replySuggestionView(state, suggestion),
    messaging_channel: config.messagingChannel,
    channel_config_id: config.id,
  };
}
