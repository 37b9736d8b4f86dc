/**
 * The Chat object of spec 01 as the owned_chats endpoint answers it, computed
 * from the sandbox's records.
 *
 * duration and active_duration count normal messages (type msg) only, and
 * stay null until the chat has ended. Active time, as the chat resource's
 * active_duration and the limits table put it: after each message the chat is
 * active for 60 s, idle afterwards. So each gap between consecutive messages
 * adds at most 60 s, the last message adds its own 60 s too, and nothing
 * counts past the chat's end (messages at 0, 10 and 200 s of a chat ended
 * long after: 70 + 60 = 130 s; ended at 230 s: 70 + 30 = 100 s).
 */
import type { Chat } from '../platform/schemas/chats.ts';
import { DEFAULT_MESSAGING_CHANNEL } from './chat-seeding.ts';
import type { ChatRecord, MessageRecord } from './model.ts';
import type { SandboxState } from './state.ts';
import { iso, isoOrNull } from './time.ts';

export const ACTIVE_WINDOW_MS = 60_000;

/** The union of the messages' 60 s windows: each runs until the next message, 60 s, or the end, whichever comes first. */
function activeDurationSeconds(messageTimes: readonly number[], endedAt: number): number {
  const times = [...messageTimes].sort((a, b) => a - b);
  let active = 0;
  for (let i = 0; i < times.length; i++) {
    const until = Math.min(times[i + 1] ?? Infinity, times[i]! + ACTIVE_WINDOW_MS, endedAt);
    active += Math.max(0, until - times[i]!);
  }
  return active / 1000;
}

function visitorWaitTimeSeconds(messages: readonly MessageRecord[]): number | null {
  const firstVisitor = messages.find((m) => m.senderType === 'visitor');
  if (!firstVisitor) return null;
  const answer = messages.find((m) => m.senderType === 'user' && m.createdAt >= firstVisitor.createdAt);
  return answer ? (answer.createdAt - firstVisitor.createdAt) / 1000 : null;
}

export function chatView(state: SandboxState, chat: ChatRecord): Chat {
  const room = state.rooms.get(chat.roomId);
  const messages = state.messagesOf(chat.id).filter((m) => m.type === 'msg');
  const userMessages = messages.filter((m) => m.senderType === 'user').length;
  const visitorMessages = messages.length - userMessages;
  const times = messages.map((m) => m.createdAt);
  const presentUsers = 0; // nobody is ever "present" in the sandbox: no agent UI is connected
  const presentVisitors = 0;
  const visitorMembers = chat.visitorId === '' ? 0 : 1; // a visitor chat has exactly one visitor membership
  const encrypted = chat.encryptedSymmetricKey !== undefined;

  return {
    id: chat.id,
    created_at: iso(chat.createdAt),
    updated_at: iso(chat.updatedAt),
    waiting_started_at: isoOrNull(chat.waitingStartedAt),
    is_ended: chat.isEnded,
    ended_at: isoOrNull(chat.endedAt),
    room_id: chat.roomId,
    room_name: room?.name ?? '',
    room_organization_id: chat.organizationId,
    chat_type: chat.chatType,
    is_private: false,
    is_real_conversation: userMessages > 0 && visitorMessages > 0,
    is_autosuggested: false,
    is_encrypted: encrypted,
    // Present only when is_encrypted is true (spec 01).
    ...(encrypted ? { encrypted_symmetric_key: chat.encryptedSymmetricKey } : {}),
    message_count: messages.length,
    user_message_count: userMessages,
    visitor_message_count: visitorMessages,
    has_messages: messages.length > 0,
    has_user_messages: userMessages > 0,
    has_visitor_messages: visitorMessages > 0,
    first_visitor_message_url: null,
    first_visitor_message_url_title: null,
    autosuggest_url: null,
    autosuggest_url_title: null,
    tag_count: 0,
    is_waiting: chat.isWaiting,
    is_pending: chat.isWaiting && presentUsers === 0,
    member_count: visitorMembers + chat.userMemberIds.length,
    user_member_count: chat.userMemberIds.length,
    visitor_member_count: visitorMembers,
    present_participant_count: presentUsers + presentVisitors,
    present_user_participant_count: presentUsers,
    present_visitor_participant_count: presentVisitors,
    visitor_wait_time: visitorWaitTimeSeconds(messages),
    duration: chat.isEnded ? (times.length > 0 ? (times[times.length - 1]! - times[0]!) / 1000 : 0) : null,
    active_duration: chat.isEnded && chat.endedAt !== null ? activeDurationSeconds(times, chat.endedAt) : null,
    messaging_channel: chat.link?.messagingChannel ?? chat.messagingChannel ?? DEFAULT_MESSAGING_CHANNEL,
    // Deprecated fields (spec 01) remain present.
    token: null,
    legacy_conversation_state: null,
    legacy_room_id: null,
  };
}
