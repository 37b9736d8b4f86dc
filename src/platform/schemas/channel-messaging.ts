/**
 * Channel messaging (spec 03, base path /api/pub/v1/orgs/<organization_id>):
 * channels, members, notification settings and live streams. Messages and
 * their version 3 body are in ./channel-messages.ts.
 *
 * Requests are strict (unknown keys refused with their name); responses are
 * loose (unknown keys kept). Where the document says "payload: not shown" the
 * request is accepted as any JSON object and passed on unchecked.
 */
import { z } from 'zod';
import { ChannelMessage } from './channel-messages.ts';
import { Paginated } from './pagination.ts';

export * from './channel-messages.ts';

const isoDateTime = z.string();

/**
 * A collection of channel messaging. Spec 03: "Shape of the paginated
 * collection wrapper of channel messaging: not shown", and some listings are
 * not said to be paginated at all. We expect the spec 01 wrapper
 * (`{ next, previous, results }`) and also accept a bare array.
 */
export function Collection<T extends z.ZodType>(item: T) {
  return z.union([Paginated(item), z.array(item)]);
}

/** A request whose payload the document does not show: any JSON object, passed on unchecked. */
export const PayloadNotShown = z.looseObject({});

/** "No payload": nothing, or an empty JSON object; any field is refused by name. */
export const NoPayload = z.strictObject({}).optional();

// ─── Channels ───────────────────────────────────────────────────────────────

/**
 * Spec 03, "Channel". Name, description, avatar and the latest message are
 * nullable: a new or direct-message channel may have none (not shown).
 */
export const Channel = z.looseObject({
  id: z.uuid(),
  name: z.string().nullable(),
  description: z.string().nullable(),
  organization_id: z.uuid(),
  created_at: isoDateTime,
  updated_at: isoDateTime,
  avatar_url: z.string().nullable(),
  is_direct_message: z.boolean(),
  latest_message: ChannelMessage.nullable(),
  /** The default ordering key. */
  latest_message_created_at: isoDateTime.nullable(),
});
export type Channel = z.infer<typeof Channel>;

/** POST /channels: payload not shown. */
export const CreateChannelRequest = PayloadNotShown;
/** PUT or PATCH /channels/<channel_id>: payload not shown. */
export const UpdateChannelRequest = PayloadNotShown;
/**
 * POST /users/<user_id>/dm-channels: payload field names not shown. A
 * direct-message channel exists once per member set (an existing one is
 * returned instead) and members cannot be added afterwards.
 */
export const CreateDmChannelRequest = PayloadNotShown;

// ─── Members ────────────────────────────────────────────────────────────────

/** Spec 03, "Channel member". */
export const ChannelMember = z.looseObject({
  id: z.uuid(),
  channel: z.uuid(),
  /** The user ID. */
  member_id: z.uuid(),
  organization_id: z.uuid(),
  created_at: isoDateTime,
  updated_at: isoDateTime,
  /** Null while the member has never read the channel (not shown). */
  last_seen_at: isoDateTime.nullable(),
  unread_message_count: z.number().int(),
  is_admin: z.boolean(),
});
export type ChannelMember = z.infer<typeof ChannelMember>;

/** POST /channels/<channel_id>/members (public channels only): payload not shown. */
export const AddChannelMemberRequest = PayloadNotShown;
/** PATCH /channels/<channel_id>/members/<member_id>: payload not shown. */
export const UpdateChannelMemberRequest = PayloadNotShown;

// ─── Notification settings ──────────────────────────────────────────────────

/**
 * Spec 03, "Notification settings": created automatically per member as
 * unmuted; with mentions, a notification is sent when the user is named in
 * notify_users.
 */
export const NOTIFICATION_MODES = ['muted', 'mentions', 'unmuted'] as const;
export const DEFAULT_NOTIFICATION_MODE = 'unmuted';

export const NotificationSettings = z.looseObject({
  id: z.uuid(),
  channel: z.uuid(),
  user_id: z.uuid(),
  organization_id: z.uuid(),
  created_at: isoDateTime,
  updated_at: isoDateTime,
  mode: z.enum(NOTIFICATION_MODES),
});
export type NotificationSettings = z.infer<typeof NotificationSettings>;

/** PATCH …/notification_settings: "Update mode", the only writable field. */
export const UpdateNotificationSettingsRequest = z.strictObject({
  mode: z.enum(NOTIFICATION_MODES),
});
export type UpdateNotificationSettingsRequest = z.input<typeof UpdateNotificationSettingsRequest>;

// ─── Live streams ───────────────────────────────────────────────────────────

/** POST /channels/<channel_id>/conference/create_stream answers with the ingest details. */
export const LiveStreamInputCreated = z.looseObject({
  /** RTMP ingest URL. */
  rtmps_url: z.string(),
  /** HLS playback URL. */
  view_url: z.string(),
  /** Key used with the RTMPS URL. */
  stream_key: z.string(),
  /** Provider stream ID. */
  stream_uid: z.string(),
});
export type LiveStreamInputCreated = z.infer<typeof LiveStreamInputCreated>;

/** One item of GET /conference/streams (the organization's live stream inputs). */
export const LiveStreamInput = z.looseObject({
  /** Channel ID. */
  channel: z.string(),
  /** Nullable like a channel's name. */
  channel_name: z.string().nullable(),
  /** ISO 8601. */
  created: z.string(),
  /** Provider stream ID. */
  uid: z.string(),
  rtmps_url: z.string(),
  view_url: z.string(),
});
export type LiveStreamInput = z.infer<typeof LiveStreamInput>;

/** Spec 03, "Recorded stream". */
export const RecordedStream = z.looseObject({
  uid: z.string(),
  /** URL. */
  thumbnail: z.string(),
  created: z.string(),
  modified: z.string(),
  /** Bytes. */
  size: z.number().int(),
  /** Seconds; -1 means unknown (available after upload, before the video is ready). */
  duration: z.number(),
  /** Pixels. */
  input: z.looseObject({ width: z.number().int(), height: z.number().int() }),
  playback: z.looseObject({ hls: z.string(), dash: z.string() }),
  /** `name` is the recording name. */
  meta: z.looseObject({ name: z.string() }),
});
export type RecordedStream = z.infer<typeof RecordedStream>;

/**
 * Public GET …/conference/stream_status. is_connected (the streamer is
 * connected) is followed, after seconds_until_watchable, by is_watchable.
 */
export const StreamStatus = z.looseObject({
  is_connected: z.boolean(),
  is_watchable: z.boolean(),
  /** Seconds a client waits before showing the stream so the buffer is built. */
  seconds_until_watchable: z.number().int(),
});
export type StreamStatus = z.infer<typeof StreamStatus>;

/** Public GET …/conference/stream_viewer_count: visitor IDs seen watching in the last 2 minutes. */
export const StreamViewerCount = z.looseObject({
  viewer_count: z.number().int(),
});
export type StreamViewerCount = z.infer<typeof StreamViewerCount>;
