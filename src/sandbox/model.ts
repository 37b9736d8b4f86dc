/**
 * The records the sandbox keeps in memory. Times are epoch milliseconds of
 * the sandbox clock; views turn them into ISO 8601 strings.
 */

export interface Organization {
  id: string;
  name: string;
}

export interface Room {
  id: string;
  name: string;
  organizationId: string;
}

/** An agent (human or bot) of an organization. */
export interface User {
  id: string;
  organizationId: string;
  /** Full name (`sender_name`). */
  name: string;
  /** Alias shown in chats (`sender_public_name`). */
  publicName: string;
  createdAt: number;
}

export interface ApiToken {
  token: string;
  organizationId: string;
  userId: string;
  scopes: ReadonlySet<string>;
}

export interface ChannelConfigurationRecord {
  id: string;
  organizationId: string;
  name: string;
  messagingChannel: string;
  roomId: string;
  replyWebhookUrl: string;
  maxRetryCount: number;
  webhookSecretKey: string;
  createdAt: number;
  modifiedAt: number;
}

/** An external thread linked to the chat session currently serving it. */
export interface ThreadMapping {
  id: string;
  configId: string;
  organizationId: string;
  threadId: string;
  visitorId: string;
  /** The latest chat session of the thread; it may have ended or been purged. */
  chatId: string;
  createdAt: number;
  updatedAt: number;
}

export interface Visitor {
  id: string;
  organizationId: string;
  /** The `sender_id` of the external message that created the visitor. */
  externalSenderId: string | null;
  variables: Record<string, string>;
  createdAt: number;
}

/** How a chat is linked to unified messaging; null for chats made elsewhere. */
export interface ChatLink {
  configId: string;
  mappingId: string;
  threadId: string;
  messagingChannel: string;
}

export type ChatType = 'external' | 'visitor';

export interface ChatRecord {
  id: string;
  organizationId: string;
  roomId: string;
  chatType: ChatType;
  visitorId: string;
  link: ChatLink | null;
  createdAt: number;
  updatedAt: number;
  isWaiting: boolean;
  waitingStartedAt: number | null;
  isEnded: boolean;
  endedAt: number | null;
  /** Users who joined by writing, in order of joining. */
  userMemberIds: string[];
}

export type MessageType = 'msg' | 'join';
export type SenderType = 'visitor' | 'user';

export interface MessageRecord {
  id: string;
  chatId: string;
  type: MessageType;
  senderType: SenderType;
  /** The visitor's or user's UUID. */
  senderId: string;
  senderName: string | null;
  senderPublicName: string | null;
  text: string;
  /** For messages that came through unified messaging: the caller's message_id and sender_id. */
  externalMessageId: string | null;
  externalSenderId: string | null;
  selectedReplySuggestionId: string | null;
  createdAt: number;
}

export interface ReplySuggestionRecord {
  id: string;
  chatId: string;
  organizationId: string;
  roomId: string;
  /** The visitor message answered. */
  messageId: string;
  createdByUserId: string;
  suggestion: string;
  relevancyScore: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface WebhookAttempt {
  config_id: string;
  event_type: string;
  event_id: string;
  attempt: number;
  url: string;
  status: number | null;
  error: string | null;
  started_at: string;
  duration_ms: number;
}
