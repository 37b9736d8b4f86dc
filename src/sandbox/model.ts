/**
 * The records the sandbox keeps in memory. Times are epoch milliseconds of
 * the sandbox clock; views turn them into ISO 8601 strings.
 */
import type { USER_PREFERENCES_DEFAULTS } from '../platform/schemas/users.ts';

export interface Organization {
  id: string;
  name: string;
  /** Private history: chat reads of owned_chats then need the reports permission (spec 01). Default false. */
  privateHistory?: boolean;
  /** PEM public key for encrypted chats; absent while the feature is not enabled. */
  publicKeyPem?: string;
}

export interface Room {
  id: string;
  name: string;
  organizationId: string;
}

type PreferenceDefaults = typeof USER_PREFERENCES_DEFAULTS;
/** The stored preferences of one user (the resource without user_id). */
export type UserPreferencesValues = {
  -readonly [K in keyof PreferenceDefaults]: PreferenceDefaults[K] extends boolean ? boolean : PreferenceDefaults[K] extends number ? number : string;
};

/** An agent (human or bot) of an organization. */
export interface User {
  id: string;
  organizationId: string;
  /** Full name (`sender_name`). */
  name: string;
  /** Alias shown in chats (`sender_public_name`). */
  publicName: string;
  createdAt: number;
  /** Spec 01 User fields (users interface); absent on users made before them, read as derived from `name`. */
  email?: string | null;
  firstName?: string;
  lastName?: string;
  /** The remaining spec 01 User fields; absent means their defaults. */
  profile?: UserProfile;
}

/** Spec 01 User fields beyond the names (users interface). */
export interface UserProfile {
  alias: string | null;
  /** 1 male, 2 female, null unknown (docs/decisions/sandbox-users.md). */
  gender: number | null;
  birthday: string | null;
  phone: string | null;
  title: string | null;
  isManager: boolean;
  isBot: boolean;
  isStaff: boolean;
  isOnlineEnabled: boolean;
  isCreatedBySso: boolean;
  updatedAt: number;
  deletedAt: number | null;
  avatarId: string | null;
}

/** What a token may do (spec 01, Authentication 5); absent on a token means everything. */
export interface TokenPermissions {
  subscription: boolean;
  organizationAccess: boolean;
  reports: boolean;
  users: boolean;
}

/** A user client (presence) of spec 01. */
export interface UserClientRecord {
  id: string;
  userId: string;
  presenceExpiresIn: number;
  /** When presence was last registered or refreshed. */
  refreshedAt: number;
  gcmToken: string | null;
  subscribedChannels: string[];
  createdAt: number;
  updatedAt: number;
}

export interface AvatarRecord {
  id: string;
  userId: string;
  contentType: string;
  filename: string;
  bytes: Buffer;
  createdAt: number;
  updatedAt: number;
}

export interface ApiToken {
  token: string;
  organizationId: string;
  userId: string;
  scopes: ReadonlySet<string>;
  /** Spec 01 permissions; absent means all granted. */
  permissions?: TokenPermissions;
  /** Sandbox-clock epoch ms after which the token is refused (implicit-flow access tokens); absent: never expires. */
  expiresAt?: number;
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

export type ChatType = 'external' | 'visitor' | 'operator';

export interface ChatRecord {
  id: string;
  organizationId: string;
  roomId: string;
  chatType: ChatType;
  /** '' for a chat without a visitor (operator). */
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
  /** Encrypted chats: the AES key, RSA-encrypted to the organization's public key (base64). */
  encryptedSymmetricKey?: string;
  /** messaging_channel of a chat without a unified-messaging link (seeded or created empty). */
  messagingChannel?: string;
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
  /** Encrypted chats: the text AES-encrypted (base64); `text` is then empty. */
  encryptedMessage?: string;
  /** Files and images an agent attached (control API); absent for none. */
  attachments?: MessageAttachmentRecord[];
}

/** One attachment of a message: its kind and the file it shows (message-files.ts). */
export interface MessageAttachmentRecord {
  type: 'file' | 'image';
  fileId: string;
  name: string;
  size: number;
}

/** The bytes of an attachment, served without credentials at /_sandbox/files/<id>/<name>. */
export interface SandboxFile {
  /** 16 random bytes, base64url: the unguessable part of the URL. */
  id: string;
  name: string;
  contentType: string;
  bytes: Buffer;
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
