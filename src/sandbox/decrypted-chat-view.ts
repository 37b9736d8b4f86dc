/**
 * The decrypted chat of spec 01 ("Decrypted chat"): a few chat fields plus
 * every message of the chat with its text. Messages of encrypted chats are
 * decrypted here, per request, with the caller's private key; the plaintext
 * exists only in the answer.
 *
 * sender_name is a string for every message (the decrypted chat's message
 * fields). Visitors have no name field anywhere in the documents: a visitor's
 * name is its visitor variable `name` (what the gateway sets from a
 * connector's sender name), and a visitor without one is "Visitor"
 * (docs/decisions/sandbox-chats.md).
 */
import type { KeyObject } from 'node:crypto';
import type { DecryptedChat } from '../platform/schemas/chats.ts';
import { chatDecipher } from './chat-encryption.ts';
import type { ChatRecord, MessageRecord } from './model.ts';
import type { SandboxState } from './state.ts';
import { iso, isoOrNull } from './time.ts';

/** The sender_name of a visitor that has no `name` variable. */
export const UNNAMED_VISITOR = 'Visitor';

function senderNameOf(state: SandboxState, message: MessageRecord): string {
  if (message.senderType === 'user') return message.senderName ?? '';
  const name = state.visitors.get(message.senderId)?.variables['name']?.trim();
  return name ? name : UNNAMED_VISITOR;
}

export function decryptedChatView(state: SandboxState, chat: ChatRecord, privateKey: KeyObject): DecryptedChat {
  const messages = state.messagesOf(chat.id);
  const encrypted = chat.encryptedSymmetricKey !== undefined;
  const decrypt = encrypted ? chatDecipher(privateKey, chat.encryptedSymmetricKey!) : undefined;
  return {
    id: chat.id,
    created_at: iso(chat.createdAt),
    updated_at: iso(chat.updatedAt),
    ended_at: isoOrNull(chat.endedAt),
    room_id: chat.roomId,
    room_organization_id: chat.organizationId,
    room_name: state.rooms.get(chat.roomId)?.name ?? '',
    message_count: messages.filter((m) => m.type === 'msg').length,
    is_encrypted: encrypted,
    messages: messages.map((m) => {
      const sealed = m.encryptedMessage !== undefined && decrypt !== undefined;
      return {
        id: m.id,
        type: m.type,
        chat_id: chat.id,
        created_at: iso(m.createdAt),
        sender_id: m.senderId,
        sender_type: m.senderType,
        sender_name: senderNameOf(state, m),
        content: sealed ? decrypt(m.encryptedMessage!) : m.text,
        is_encrypted: sealed,
        encrypted_message: sealed ? m.encryptedMessage! : null,
      };
    }),
  };
}
