/**
 * Chat sessions and their messages: creating a chat, adding a message (with
 * the membership and waiting-state rules), ending a chat.
 */
import { randomUUID } from 'node:crypto';
import { SandboxConflictError, SandboxNotFoundError } from './errors.ts';
import type { ChatLink, ChatRecord, ChatType, MessageRecord, User, Visitor } from './model.ts';
import type { SandboxState } from './state.ts';

export interface NewChat {
  organizationId: string;
  roomId: string;
  chatType: ChatType;
  visitor: Visitor;
  link: ChatLink | null;
  /** Placed in the waiting queue (false with skip_waiting_state). */
  waiting: boolean;
}

export function createChat(state: SandboxState, input: NewChat): ChatRecord {
  const now = state.now();
  const chat: ChatRecord = {
    id: randomUUID(),
    organizationId: input.organizationId,
    roomId: input.roomId,
    chatType: input.chatType,
    visitorId: input.visitor.id,
    link: input.link,
    createdAt: now,
    updatedAt: now,
    isWaiting: input.waiting,
    waitingStartedAt: input.waiting ? now : null,
    isEnded: false,
    endedAt: null,
    userMemberIds: [],
  };
  state.chats.set(chat.id, chat);
  // The visitor membership: a join message, which is a system message and never counts as a msg.
  addRecord(state, chat, {
    type: 'join',
    senderType: 'visitor',
    senderId: input.visitor.id,
    senderName: null,
    senderPublicName: null,
    text: '',
  });
  return chat;
}

export function createVisitor(state: SandboxState, organizationId: string, externalSenderId: string | null): Visitor {
  const visitor: Visitor = { id: randomUUID(), organizationId, externalSenderId, variables: {}, createdAt: state.now() };
  state.visitors.set(visitor.id, visitor);
  return visitor;
}

/** The chat of this organization (any organization when omitted), or 404. */
export function requireChat(state: SandboxState, chatId: string, organizationId?: string): ChatRecord {
  const chat = state.chats.get(chatId);
  if (!chat || (organizationId !== undefined && chat.organizationId !== organizationId)) {
    throw new SandboxNotFoundError('Chat not found.');
  }
  return chat;
}

/** Ended chats are locked: messages and members can no longer change (spec 01). */
export function assertOpen(chat: ChatRecord): void {
  if (chat.isEnded) throw new SandboxConflictError('The chat has ended; it can no longer change.');
}

export type MessageAuthor = { kind: 'visitor'; visitor: Visitor } | { kind: 'user'; user: User };

export interface NewMessage {
  author: MessageAuthor;
  text: string;
  externalMessageId?: string | null;
  externalSenderId?: string | null;
  selectedReplySuggestionId?: string | null;
}

/** Adds a normal message (type msg). */
export function addMessage(state: SandboxState, chat: ChatRecord, input: NewMessage): MessageRecord {
  assertOpen(chat);
  const { author } = input;
  if (author.kind === 'user') {
    if (!chat.userMemberIds.includes(author.user.id)) {
      chat.userMemberIds.push(author.user.id);
      addRecord(state, chat, { type: 'join', ...userSender(author.user), text: '' });
    }
    // Spec 01 leaves what a user response does to is_waiting "not shown"; we
    // take the meaning of the field ("awaiting a user response") literally:
    // any user message ends the wait. waiting_started_at stays as it was.
    chat.isWaiting = false;
  }
  const sender =
    author.kind === 'user'
      ? userSender(author.user)
      : { senderType: 'visitor' as const, senderId: author.visitor.id, senderName: null, senderPublicName: null };
  return addRecord(state, chat, {
    type: 'msg',
    ...sender,
    text: input.text,
    externalMessageId: input.externalMessageId ?? null,
    externalSenderId: input.externalSenderId ?? null,
    selectedReplySuggestionId: input.selectedReplySuggestionId ?? null,
  });
}

function userSender(user: User) {
  return { senderType: 'user' as const, senderId: user.id, senderName: user.name, senderPublicName: user.publicName };
}

type RecordInput = Pick<MessageRecord, 'type' | 'senderType' | 'senderId' | 'senderName' | 'senderPublicName' | 'text'> &
  Partial<Pick<MessageRecord, 'externalMessageId' | 'externalSenderId' | 'selectedReplySuggestionId'>>;

function addRecord(state: SandboxState, chat: ChatRecord, input: RecordInput): MessageRecord {
  const now = state.now();
  const message: MessageRecord = {
    externalMessageId: null,
    externalSenderId: null,
    selectedReplySuggestionId: null,
    ...input,
    id: randomUUID(),
    chatId: chat.id,
    createdAt: now,
  };
  state.addMessage(message);
  chat.updatedAt = now;
  return message;
}

/** Ends and locks the chat; ending an ended chat changes nothing. */
export function endChat(state: SandboxState, chat: ChatRecord): ChatRecord {
  if (chat.isEnded) return chat;
  const now = state.now();
  chat.isEnded = true;
  chat.endedAt = now;
  chat.isWaiting = false;
  chat.updatedAt = now;
  return chat;
}
