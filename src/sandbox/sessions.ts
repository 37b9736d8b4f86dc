/**
 * The unified messaging session state machine of spec 03: inbound messages
 * open, continue or reopen the chat session a thread is mapped to, and
 * close_session ends it.
 *
 *   no mapping      + messages → new chat, new visitor, mapping created   (is_new_session true)
 *   active session  + messages → same chat                                 (is_new_session false)
 *   ended session   + messages → new chat, the same mapping points at it   (is_new_session true)
 *   close_session true         → messages created, then the session ends
 *
 * A request is checked whole before anything changes, so a 400 leaves no trace.
 * Thread ids are scoped to the channel configuration; a reopened thread keeps
 * its visitor (docs/decisions/sandbox-unified-messaging-sessions.md).
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type {
  CloseSessionResponse,
  CreateMessagesRequest,
  CreateMessagesResponse,
} from '../platform/schemas/unified-messaging.ts';
import { addMessage, createChat, createVisitor, endChat, type MessageAuthor } from './chats.ts';
import { SandboxNotFoundError, SandboxValidationError } from './errors.ts';
import type { ChannelConfigurationRecord, ChatRecord, ThreadMapping, User, Visitor } from './model.ts';
import type { SandboxState } from './state.ts';

type CreateMessagesInput = z.output<typeof CreateMessagesRequest>;
type InboundMessageInput = CreateMessagesInput['messages'][number];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Session {
  chat: ChatRecord;
  mapping: ThreadMapping;
}

export function ingestMessages(
  state: SandboxState,
  config: ChannelConfigurationRecord,
  input: CreateMessagesInput,
): CreateMessagesResponse {
  const threadId = input.messages[0]!.thread_id; // the schema requires one message at least
  const mapping = state.findMapping(config.id, threadId);
  const current = mapping === undefined ? undefined : state.chats.get(mapping.chatId);
  const active: Session | undefined =
    mapping !== undefined && current !== undefined && !current.isEnded ? { chat: current, mapping } : undefined;

  const users = input.messages.map((m, i) => checkMessage(state, config, m, i, active?.chat));

  const visitor = visitorFor(state, config, mapping, input.messages);
  const { chat, mapping: threadMapping } =
    active ?? openSession(state, config, threadId, mapping, visitor, !input.skip_waiting_state);

  for (const [key, value] of Object.entries(input.variables ?? {})) {
    if (value !== null) visitor.variables[key] = value;
  }

  const messageIds = input.messages.map((m, i) => {
    const user = users[i];
    const author: MessageAuthor = user ? { kind: 'user', user } : { kind: 'visitor', visitor };
    return addMessage(state, chat, {
      author,
      text: m.body,
      externalMessageId: m.message_id,
      externalSenderId: m.sender_id,
      selectedReplySuggestionId: m.selected_reply_suggestion_id,
    }).id;
  });

  if (input.close_session) endChat(state, chat);

  return {
    chat_id: chat.id,
    mapping_id: threadMapping.id,
    message_ids: messageIds,
    messages_created: messageIds.length,
    is_new_session: active === undefined,
  };
}

/** A new external chat for the thread; the thread's mapping is created or re-pointed at it. */
function openSession(
  state: SandboxState,
  config: ChannelConfigurationRecord,
  threadId: string,
  mapping: ThreadMapping | undefined,
  visitor: Visitor,
  waiting: boolean,
): Session {
  const mappingId = mapping?.id ?? randomUUID();
  const chat = createChat(state, {
    organizationId: config.organizationId,
    roomId: config.roomId,
    chatType: 'external',
    visitor,
    link: { configId: config.id, mappingId, threadId, messagingChannel: config.messagingChannel },
    waiting,
  });
  const now = state.now();
  const next: ThreadMapping = mapping
    ? { ...mapping, visitorId: visitor.id, chatId: chat.id, updatedAt: now }
    : {
        id: mappingId,
        configId: config.id,
        organizationId: config.organizationId,
        threadId,
        visitorId: visitor.id,
        chatId: chat.id,
        createdAt: now,
        updatedAt: now,
      };
  state.saveMapping(next);
  return { chat, mapping: next };
}

/**
 * The rules that need the state: a user sender must be a user of the
 * organization; a selected reply suggestion needs a user sender, an existing
 * active conversation, and must belong to that chat session and organization.
 * Returns the user for a user message, undefined for a visitor message.
 */
function checkMessage(
  state: SandboxState,
  config: ChannelConfigurationRecord,
  message: InboundMessageInput,
  index: number,
  activeChat: ChatRecord | undefined,
): User | undefined {
  const at = (field: string) => `messages.${index}.${field}`;
  let user: User | undefined;
  if (message.sender_type === 'user') {
    user = UUID.test(message.sender_id) ? state.users.get(message.sender_id.toLowerCase()) : undefined;
    if (user === undefined || user.organizationId !== config.organizationId) {
      throw SandboxValidationError.field(at('sender_id'), 'For user messages, sender_id must be the UUID of a user in this organization.');
    }
  }
  const suggestionId = message.selected_reply_suggestion_id;
  if (suggestionId !== null) {
    const field = at('selected_reply_suggestion_id');
    if (message.sender_type !== 'user') {
      throw SandboxValidationError.field(field, 'A reply suggestion can only be selected in a user message.');
    }
    if (activeChat === undefined) {
      throw SandboxValidationError.field(field, 'A reply suggestion cannot be selected in a new conversation.');
    }
    const suggestion = state.suggestions.get(suggestionId);
    if (suggestion === undefined || suggestion.chatId !== activeChat.id || suggestion.organizationId !== config.organizationId) {
      throw SandboxValidationError.field(field, 'The reply suggestion does not belong to this chat session.');
    }
  }
  return user;
}

/** The thread's visitor, or a new one named after the first visitor message's sender_id. */
function visitorFor(
  state: SandboxState,
  config: ChannelConfigurationRecord,
  mapping: ThreadMapping | undefined,
  messages: readonly InboundMessageInput[],
): Visitor {
  const existing = mapping === undefined ? undefined : state.visitors.get(mapping.visitorId);
  if (existing) return existing;
  const sender = messages.find((m) => m.sender_type === 'visitor')?.sender_id ?? null;
  return createVisitor(state, config.organizationId, sender);
}

export function closeSession(
  state: SandboxState,
  config: ChannelConfigurationRecord,
  threadId: string,
): CloseSessionResponse {
  const mapping = state.findMapping(config.id, threadId);
  if (mapping === undefined) throw new SandboxNotFoundError('Thread ID not found for this channel configuration.');
  const chat = state.chats.get(mapping.chatId);
  if (chat === undefined) throw new SandboxNotFoundError('No chat session exists for this thread.');
  const alreadyEnded = chat.isEnded;
  endChat(state, chat);
  return {
    chat_session_id: chat.id,
    thread_id: threadId,
    message: alreadyEnded ? 'Chat session was already closed.' : 'Chat session closed.',
    is_ended: true,
  };
}
