/**
 * Channel messaging records as the platform answers them (spec 03,
 * "Resources and their fields"). Every view parses with the matching
 * response schema of `src/platform/schemas/channel-messaging.ts`.
 */
import type {
  Channel,
  ChannelMember,
  ChannelMessage,
  LiveStreamInput,
  NotificationSettings,
  RecordedStream,
} from '../../platform/schemas/channel-messaging.ts';
import { iso, isoOrNull } from '../time.ts';
import type { ChannelMessageRecord, ChannelRecord, LiveStreamRecord, MemberRecord, NotificationRecord, RecordedStreamRecord } from './model.ts';
import type { ChannelMessagingStore } from './store.ts';

export function messageView(message: ChannelMessageRecord): ChannelMessage {
  return {
    id: message.id,
    channel_id: message.channelId,
    sender_id: message.senderId,
    organization_id: message.organizationId,
    created_at: iso(message.createdAt),
    updated_at: iso(message.updatedAt),
    body: structuredClone(message.body),
  };
}

export function channelView(store: ChannelMessagingStore, channel: ChannelRecord): Channel {
  const latest = store.latestMessage(channel.id);
  return {
    id: channel.id,
    name: channel.name,
    description: channel.description,
    organization_id: channel.organizationId,
    created_at: iso(channel.createdAt),
    updated_at: iso(channel.updatedAt),
    avatar_url: channel.avatarUrl,
    is_direct_message: channel.isDirectMessage,
    is_public: channel.isPublic,
    member_ids: store.membersOf(channel.id).map((m) => m.userId),
    latest_message: latest === undefined ? null : messageView(latest),
    latest_message_created_at: latest === undefined ? null : iso(latest.createdAt),
  };
}

export function memberView(store: ChannelMessagingStore, member: MemberRecord): ChannelMember {
  return {
    id: member.id,
    channel: member.channelId,
    member_id: member.userId,
    organization_id: member.organizationId,
    created_at: iso(member.createdAt),
    updated_at: iso(member.updatedAt),
    last_seen_at: isoOrNull(member.lastSeenAt),
    unread_message_count: store.unreadCount(member),
    is_admin: member.isAdmin,
  };
}

export function notificationSettingsView(member: MemberRecord): NotificationSettings {
  return {
    id: member.settings.id,
    channel: member.channelId,
    user_id: member.userId,
    organization_id: member.organizationId,
    created_at: iso(member.settings.createdAt),
    updated_at: iso(member.settings.updatedAt),
    mode: member.settings.mode,
  };
}

export function notificationView(n: NotificationRecord) {
  return {
    id: n.id,
    organization_id: n.organizationId,
    channel_id: n.channelId,
    message_id: n.messageId,
    user_id: n.userId,
    reason: n.reason,
    mode: n.mode,
    created_at: iso(n.createdAt),
  };
}

/** Where the pretend streaming provider says ingest and playback live (never resolvable). */
const PROVIDER = 'sandbox-stream.invalid';
export const RTMPS_URL = `rtmps://live.${PROVIDER}:443/live/`;
export const viewUrl = (uid: string): string => `https://video.${PROVIDER}/${uid}/manifest/video.m3u8`;

export function liveStreamInputView(store: ChannelMessagingStore, stream: LiveStreamRecord): LiveStreamInput {
  return {
    channel: stream.channelId,
    channel_name: store.channels.get(stream.channelId)?.name ?? null,
    created: iso(stream.createdAt),
    uid: stream.uid,
    rtmps_url: RTMPS_URL,
    view_url: viewUrl(stream.uid),
  };
}

export function recordedStreamView(r: RecordedStreamRecord): RecordedStream {
  return {
    uid: r.uid,
    thumbnail: `https://video.${PROVIDER}/${r.uid}/thumbnails/thumbnail.jpg`,
    created: iso(r.createdAt),
    modified: iso(r.modifiedAt),
    size: r.size,
    duration: r.duration,
    input: { width: r.width, height: r.height },
    playback: {
      hls: `https://video.${PROVIDER}/${r.uid}/manifest/video.m3u8`,
      dash: `https://video.${PROVIDER}/${r.uid}/manifest/video.mpd`,
    },
    meta: { name: r.name },
  };
}
