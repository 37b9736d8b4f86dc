/** Spec 03 responses: a valid answer for every endpoint, unknown fields kept, documented fields still required. */
import { describe, expect, it } from 'vitest';
import { SPEC_03_ENDPOINTS } from '../../../src/platform/endpoints/spec-03.ts';
import { Channel, RecordedStream } from '../../../src/platform/schemas/channel-messaging.ts';
import { AT, endpoint, message, paths, U1, U2, U3 } from './spec-03-support.ts';

const channel = {
  id: U2,
  name: 'general',
  description: 'Everyone',
  organization_id: U1,
  created_at: AT,
  updated_at: AT,
  avatar_url: null,
  is_direct_message: false,
  latest_message: message,
  latest_message_created_at: AT,
};
const member = {
  id: U1,
  channel: U2,
  member_id: U3,
  organization_id: U1,
  created_at: AT,
  updated_at: AT,
  last_seen_at: null,
  unread_message_count: 2,
  is_admin: false,
};
const settings = {
  id: U1,
  channel: U2,
  user_id: U3,
  organization_id: U1,
  created_at: AT,
  updated_at: AT,
  mode: 'unmuted',
};
const recorded = {
  uid: 'rec1',
  thumbnail: 'https://video.example.com/rec1.jpg',
  created: AT,
  modified: AT,
  size: 1_000_000,
  duration: -1,
  input: { width: 1280, height: 720 },
  playback: { hls: 'https://video.example.com/rec1.m3u8', dash: 'https://video.example.com/rec1.mpd' },
  meta: { name: 'Town hall' },
};
const liveInput = {
  channel: U2,
  channel_name: 'general',
  created: AT,
  uid: 'live1',
  rtmps_url: 'rtmps://live.example.com/live',
  view_url: 'https://video.example.com/live1.m3u8',
};
const configuration = {
  id: U1,
  name: 'Support mailbox',
  messaging_channel: 'email',
  organization_id: U2,
  room_id: U3,
  reply_webhook_url: 'https://gateway.example.com/webhooks/platform',
  max_retry_count: 3,
  webhook_secret_key: 'a'.repeat(64),
  created_at: AT,
  modified_at: AT,
};
const page = <T>(item: T) => ({ next: null, previous: null, results: [item] });

/** A valid 2xx answer for every endpoint that has a response schema. */
const RESPONSES: Record<string, unknown> = {
  listChannels: page(channel),
  createChannel: channel,
  getChannel: channel,
  replaceChannel: channel,
  updateChannel: channel,
  listJoinedChannels: page(channel),
  getJoinedChannel: channel,
  listDmChannels: page({ ...channel, is_direct_message: true, name: null }),
  createDmChannel: { ...channel, is_direct_message: true },
  getDmChannel: { ...channel, is_direct_message: true },
  listChannelMessages: page(message),
  createChannelMessage: message,
  getChannelMessage: message,
  updateChannelMessage: message,
  listChannelMembers: page(member),
  addChannelMember: member,
  getChannelMember: member,
  updateChannelMember: member,
  getMemberNotificationSettings: settings,
  updateMemberNotificationSettings: { ...settings, mode: 'mentions' },
  createChannelStream: {
    rtmps_url: 'rtmps://live.example.com/live',
    view_url: 'https://video.example.com/live1.m3u8',
    stream_key: 'secret-key',
    stream_uid: 'live1',
  },
  listRecordedStreams: page(recorded),
  listOrganizationStreams: page(liveInput),
  getStreamStatus: { is_connected: true, is_watchable: false, seconds_until_watchable: 12 },
  getStreamViewerCount: { viewer_count: 7 },
  createChannelConfiguration: configuration,
  listChannelConfigurations: page(configuration),
  getChannelConfiguration: configuration,
  replaceChannelConfiguration: configuration,
  updateChannelConfiguration: configuration,
  createUnifiedMessages: {
    chat_id: U1,
    mapping_id: U2,
    message_ids: [U3],
    messages_created: 1,
    is_new_session: true,
  },
  closeUnifiedSession: { chat_session_id: U1, thread_id: 't-1', message: 'Session closed.', is_ended: true },
};

describe('loose responses', () => {
  it('has a sample for every response', () => {
    const withResponse = SPEC_03_ENDPOINTS.filter((e) => e.response).map((e) => e.id);
    expect(withResponse.sort()).toEqual(Object.keys(RESPONSES).sort());
  });

  it.each(Object.entries(RESPONSES))('%s keeps unknown fields', (id, sample) => {
    const schema = endpoint(id).response!;
    expect(schema.parse(sample)).toEqual(sample);
    const extended =
      typeof sample === 'object' && sample !== null && 'results' in sample
        ? {
            ...sample,
            count: 1,
            results: (sample.results as Record<string, unknown>[]).map((r) => ({ ...r, added_later: 'x' })),
          }
        : { ...(sample as Record<string, unknown>), added_later: { deep: true } };
    expect(schema.parse(extended)).toEqual(extended);
  });

  it('reads a bare array where a collection is expected', () => {
    expect(endpoint('listChannelMembers').response!.parse([member])).toEqual([member]);
  });

  it('keeps unknown fields of nested objects', () => {
    const nested = {
      ...recorded,
      input: { ...recorded.input, fps: 30 },
      playback: { ...recorded.playback, mp4: 'https://x.example/a.mp4' },
      meta: { ...recorded.meta, tags: ['a'] },
    };
    expect(RecordedStream.parse(nested)).toEqual(nested);
    const withMessage = { ...channel, latest_message: { ...message, reactions: [] } };
    expect(Channel.parse(withMessage)).toEqual(withMessage);
  });

  it('still refuses an answer missing a documented field', () => {
    const { is_direct_message: _dropped, ...partial } = channel;
    expect(paths(Channel.safeParse(partial))).toEqual(['is_direct_message']);
  });
});
