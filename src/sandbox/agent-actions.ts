/**
 * What the agent side does in a chat (a human in the agent UI or an AI agent),
 * played through the control API: write a message, suggest a reply. Both fire
 * the webhook of spec 03 when the chat is linked to a thread mapping of a
 * configuration that still exists; visitor and system messages never do.
 */
import { randomUUID } from 'node:crypto';
import type { ReplySuggestion, WebhookEvent, WebhookMessage } from '../platform/schemas/unified-messaging.ts';
import { addMessage, assertOpen } from './chats.ts';
import type { SandboxContext } from './context.ts';
import { SandboxValidationError } from './errors.ts';
import { keepAttachments, type AttachmentInput } from './message-files.ts';
import type { ChannelConfigurationRecord, ChatLink, ChatRecord, User } from './model.ts';
import {
  messageCreatedEvent,
  replySuggestionCreatedEvent,
  replySuggestionView,
  webhookMessageView,
} from './webhook-envelopes.ts';

/** The given user of the chat's organization, or the organization's default agent. */
function agentFor(ctx: SandboxContext, chat: ChatRecord, userId: string | undefined, field: string): User {
  const user = userId === undefined ? ctx.state.defaultAgent(chat.organizationId) : ctx.state.users.get(userId);
  if (user === undefined || user.organizationId !== chat.organizationId) {
    throw SandboxValidationError.field(field, "Must be the id of a user in the chat's organization.");
  }
  return user;
}

function notify(
  ctx: SandboxContext,
  chat: ChatRecord,
  build: (link: ChatLink, config: ChannelConfigurationRecord) => WebhookEvent,
): void {
  if (chat.link === null) return; // not created through unified messaging
  const config = ctx.state.configurations.get(chat.link.configId);
  if (config === undefined) return; // the configuration was deleted
  ctx.webhooks.dispatch(config.id, build(chat.link, config));
}

export interface AgentMessageInput {
  text: string;
  senderId?: string | undefined;
  /** Files and images, kept and served by the sandbox (message-files.ts). */
  attachments?: readonly AttachmentInput[] | undefined;
  /** The sandbox's address as the caller reached it: the base of the attachments' URLs. */
  origin: string;
}

export function postAgentMessage(ctx: SandboxContext, chat: ChatRecord, input: AgentMessageInput): WebhookMessage {
  assertOpen(chat);
  const user = agentFor(ctx, chat, input.senderId, 'sender_id');
  const message = addMessage(ctx.state, chat, { author: { kind: 'user', user }, text: input.text });
  if (input.attachments?.length) message.attachments = keepAttachments(ctx.state, input.attachments);
  notify(ctx, chat, (link, config) => messageCreatedEvent(ctx.state, link, chat, config, message, input.origin));
  return webhookMessageView(ctx.state, chat, message, input.origin);
}

export interface ReplySuggestionInput {
  suggestion: string;
  messageId?: string | undefined;
  relevancyScore?: number | null | undefined;
  userId?: string | undefined;
}

export function suggestReply(ctx: SandboxContext, chat: ChatRecord, input: ReplySuggestionInput): ReplySuggestion {
  assertOpen(chat);
  const { state } = ctx;
  const user = agentFor(ctx, chat, input.userId, 'user_id');
  const visitorMessages = state.messagesOf(chat.id).filter((m) => m.type === 'msg' && m.senderType === 'visitor');
  const answered =
    input.messageId === undefined
      ? visitorMessages[visitorMessages.length - 1]
      : visitorMessages.find((m) => m.id === input.messageId);
  if (answered === undefined) {
    throw SandboxValidationError.field(
      'message_id',
      input.messageId === undefined ? 'The chat has no visitor message to answer.' : 'No visitor message with this id in the chat.',
    );
  }
  const now = state.now();
  const record = {
    id: randomUUID(),
    chatId: chat.id,
    organizationId: chat.organizationId,
    roomId: chat.roomId,
    messageId: answered.id,
    createdByUserId: user.id,
    suggestion: input.suggestion,
    relevancyScore: input.relevancyScore ?? null,
    createdAt: now,
    updatedAt: now,
  };
  state.suggestions.set(record.id, record);
  notify(ctx, chat, (link, config) => replySuggestionCreatedEvent(state, link, chat, config, record));
  return replySuggestionView(state, record);
}
