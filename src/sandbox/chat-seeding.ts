/**
 * Chats the control API seeds in one go: a room, a type, messages by
 * visitors and users at given times, optionally encrypted, optionally ended.
 * Unlike `createChat`, times are taken from the request (default: the
 * sandbox clock), so listings, filters and durations can be tested exactly.
 *
 * The chat resource's messaging_channel is "one of email, whatsapp, webchat",
 * never null; a chat seeded (or created empty) without one gets webchat
 * (docs/decisions/sandbox-chats.md).
 */
import { randomUUID } from 'node:crypto';
import type { MESSAGING_CHANNELS } from '../platform/schemas/chats.ts';
import { newChatCipher } from './chat-encryption.ts';
import { createVisitor } from './chats.ts';
import { SandboxValidationError } from './errors.ts';
import type { ChatRecord, ChatType, MessageRecord, Room, User } from './model.ts';
import type { SandboxState } from './state.ts';

export const DEFAULT_MESSAGING_CHANNEL: (typeof MESSAGING_CHANNELS)[number] = 'webchat';

export interface SeedMessage {
  sender: 'visitor' | 'user';
  text: string;
  /** The writing user (default: the organization's first user). */
  userId?: string;
  at?: number;
}

export interface SeedChat {
  room: Room;
  chatType: 'visitor' | 'operator' | 'external';
  messagingChannel?: string;
  createdAt?: number;
  waiting: boolean;
  encrypted: boolean;
  messages: SeedMessage[];
  endedAt?: number;
}

export function seedChat(state: SandboxState, input: SeedChat): ChatRecord {
  const organizationId = input.room.organizationId;
  const createdAt = input.createdAt ?? state.now();
  let cipher: ReturnType<typeof newChatCipher> | undefined;
  if (input.encrypted) {
    const publicKeyPem = state.organizations.get(organizationId)?.publicKeyPem;
    if (publicKeyPem === undefined) {
      throw SandboxValidationError.field('encrypted', 'Enable encryption for the organization first (POST /_sandbox/organizations/<id>/encryption).');
    }
    cipher = newChatCipher(publicKeyPem);
  }
  const hasVisitor = input.chatType !== 'operator';
  const visitor = hasVisitor ? createVisitor(state, organizationId, null) : undefined;
  const chat: ChatRecord = {
    id: randomUUID(),
    organizationId,
    roomId: input.room.id,
    chatType: input.chatType as ChatType,
    visitorId: visitor?.id ?? '',
    link: null,
    createdAt,
    updatedAt: createdAt,
    isWaiting: input.waiting && input.endedAt === undefined,
    waitingStartedAt: input.waiting ? createdAt : null,
    isEnded: false,
    endedAt: null,
    userMemberIds: [],
    ...(cipher ? { encryptedSymmetricKey: cipher.encryptedSymmetricKey } : {}),
    messagingChannel: input.messagingChannel ?? DEFAULT_MESSAGING_CHANNEL,
  };
  state.chats.set(chat.id, chat);

  const record = (fields: Pick<MessageRecord, 'type' | 'senderType' | 'senderId' | 'senderName' | 'senderPublicName'>, text: string, at: number) => {
    const sealed = cipher !== undefined && fields.type === 'msg';
    state.addMessage({
      ...fields,
      id: randomUUID(),
      chatId: chat.id,
      text: sealed ? '' : text,
      externalMessageId: null,
      externalSenderId: null,
      selectedReplySuggestionId: null,
      createdAt: at,
      ...(sealed ? { encryptedMessage: cipher!.encrypt(text) } : {}),
    });
    chat.updatedAt = Math.max(chat.updatedAt, at);
  };
  if (visitor) record({ type: 'join', senderType: 'visitor', senderId: visitor.id, senderName: null, senderPublicName: null }, '', createdAt);

  // Recorded in time order, so durations and listings see a consistent history.
  const ordered = [...input.messages.entries()].sort(([, a], [, b]) => (a.at ?? createdAt) - (b.at ?? createdAt));
  for (const [index, message] of ordered) {
    const at = message.at ?? createdAt;
    if (message.sender === 'visitor') {
      if (!visitor) throw SandboxValidationError.field(`messages.${index}.sender`, 'An operator chat has no visitor.');
      record({ type: 'msg', senderType: 'visitor', senderId: visitor.id, senderName: null, senderPublicName: null }, message.text, at);
      continue;
    }
    const user = authorOf(state, organizationId, message.userId, index);
    const sender = { senderType: 'user' as const, senderId: user.id, senderName: user.name, senderPublicName: user.publicName };
    if (!chat.userMemberIds.includes(user.id)) {
      chat.userMemberIds.push(user.id);
      record({ type: 'join', ...sender }, '', at);
    }
    chat.isWaiting = false;
    record({ type: 'msg', ...sender }, message.text, at);
  }
  if (input.endedAt !== undefined) {
    chat.isEnded = true;
    chat.endedAt = input.endedAt;
    chat.isWaiting = false;
    chat.updatedAt = Math.max(chat.updatedAt, input.endedAt);
  }
  return chat;
}

function authorOf(state: SandboxState, organizationId: string, userId: string | undefined, index: number): User {
  const user = userId === undefined ? state.defaultAgent(organizationId) : state.users.get(userId);
  if (user === undefined || user.organizationId !== organizationId) {
    throw SandboxValidationError.field(`messages.${index}.user_id`, 'User not found in the organization.');
  }
  return user;
}
