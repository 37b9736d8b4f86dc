/**
 * The records of channel messaging (spec 03) the sandbox keeps in memory.
 * Times are epoch milliseconds of the sandbox clock; views turn them into
 * ISO 8601 strings.
 */
import type { NOTIFICATION_MODES } from '../../platform/schemas/channel-messaging.ts';

export type NotificationMode = (typeof NOTIFICATION_MODES)[number];

export interface ChannelRecord {
  id: string;
  /** Creation order, the tie-breaker of orderings by time. */
  seq: number;
  organizationId: string;
  name: string | null;
  description: string | null;
  avatarUrl: string | null;
  /** Members may be added only to public channels; direct-message channels are never public. */
  isPublic: boolean;
  isDirectMessage: boolean;
  /** For direct-message channels: the sorted member user IDs, the channel's identity. */
  memberSetKey: string | null;
  createdBy: string;
  createdAt: number;
  updatedAt: number;
}

/** A stored message body: version 3 with its chunks as sent. */
export interface StoredBody {
  [key: string]: unknown;
  version: number;
  chunks?: ({ type: string } & Record<string, unknown>)[];
}

export interface ChannelMessageRecord {
  id: string;
  /** Creation order, the tie-breaker of orderings by time. */
  seq: number;
  channelId: string;
  organizationId: string;
  senderId: string;
  body: StoredBody;
  createdAt: number;
  updatedAt: number;
}

export interface MemberRecord {
  id: string;
  /** Creation order, the tie-breaker of orderings by time. */
  seq: number;
  channelId: string;
  organizationId: string;
  /** The user ID. */
  userId: string;
  isAdmin: boolean;
  lastSeenAt: number | null;
  createdAt: number;
  updatedAt: number;
  settings: NotificationSettingsRecord;
}

export interface NotificationSettingsRecord {
  id: string;
  mode: NotificationMode;
  createdAt: number;
  updatedAt: number;
}

/** Why a user was notified: named in notify_users, or everyone by notify_channel. */
export type NotificationReason = 'mention' | 'channel';

/** A push notification the platform would send; readable through the control API. */
export interface NotificationRecord {
  id: string;
  organizationId: string;
  channelId: string;
  messageId: string;
  userId: string;
  reason: NotificationReason;
  /** The member's mode when the message was created. */
  mode: NotificationMode;
  createdAt: number;
}

/** A channel's live stream input, as the streaming provider would hold it. */
export interface LiveStreamRecord {
  uid: string;
  seq: number;
  channelId: string;
  organizationId: string;
  streamKey: string;
  createdAt: number;
  /** Set while the streamer is connected (control API). */
  connectedAt: number | null;
  /** Seconds after connecting before the stream is watchable. */
  bufferSeconds: number;
  /** Visitor ID → last time seen watching. */
  viewers: Map<string, number>;
}

export interface RecordedStreamRecord {
  uid: string;
  seq: number;
  streamUid: string;
  channelId: string;
  name: string;
  size: number;
  /** Seconds; -1 while unknown. */
  duration: number;
  width: number;
  height: number;
  createdAt: number;
  modifiedAt: number;
}
