/** Spec 03 as data: the endpoint list against the document, and the channel messaging schemas. */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { SPEC_03_ENDPOINTS } from '../../../src/platform/endpoints/spec-03.ts';
import {
  Channel,
  ChannelMessage,
  CreateChannelMessageRequest,
  MessageBody,
  MessageChunk,
  NoPayload,
  RecordedStream,
  UpdateNotificationSettingsRequest,
} from '../../../src/platform/schemas/channel-messaging.ts';

/** Every endpoint of /work/shared/spec/03-channel-and-unified-messaging.md, copied by hand. */
const CM = '/api/pub/v1/orgs/<organization_id>';
const PUB = '/api/pub/public/v1/orgs/<organization_id>/channels/<channel_id>/conference';
const UM = '/api/v5/orgs/<organization_id>/unified_messaging';
const DOCUMENTED = [
  // Channel messaging
  `GET ${CM}/channels`,
  `POST ${CM}/channels`,
  `GET ${CM}/channels/<channel_id>`,
  `PUT ${CM}/channels/<channel_id>`,
  `PATCH ${CM}/channels/<channel_id>`,
  `GET ${CM}/users/<user_id>/joined-channels`,
  `GET ${CM}/users/<user_id>/joined-channels/<channel_id>`,
  `GET ${CM}/users/<user_id>/dm-channels`,
  `POST ${CM}/users/<user_id>/dm-channels`,
  `GET ${CM}/users/<user_id>/dm-channels/<dm_channel_id>`,
  `GET ${CM}/channels/<channel_id>/messages`,
  `POST ${CM}/channels/<channel_id>/messages`,
  `GET ${CM}/channels/<channel_id>/messages/<message_id>`,
  `PATCH ${CM}/channels/<channel_id>/messages/<message_id>`,
  `GET ${CM}/channels/<channel_id>/members`,
  `POST ${CM}/channels/<channel_id>/members`,
  `GET ${CM}/channels/<channel_id>/members/<member_id>`,
  `PATCH ${CM}/channels/<channel_id>/members/<member_id>`,
  `GET ${CM}/channels/<channel_id>/members/<member_id>/notification_settings`,
  `PATCH ${CM}/channels/<channel_id>/members/<member_id>/notification_settings`,
  `POST ${CM}/channels/<channel_id>/conference/create_stream`,
  `GET ${CM}/channels/<channel_id>/conference/recorded_streams`,
  `GET ${CM}/conference/streams`,
  // Public live stream
  `GET ${PUB}/stream_status`,
  `GET ${PUB}/stream_viewer_count`,
  // Unified messaging
  `POST ${UM}`,
  `GET ${UM}`,
  `GET ${UM}/<config_id>`,
  `PUT ${UM}/<config_id>`,
  `PATCH ${UM}/<config_id>`,
  `DELETE ${UM}/<config_id>`,
  `POST ${UM}/<config_id>/messages`,
  `POST ${UM}/<config_id>/close_session`,
];

/** Endpoints whose payload the document does not show: any JSON object passes. */
const PAYLOAD_NOT_SHOWN = [
  'createChannel',
  'replaceChannel',
  'updateChannel',
  'createDmChannel',
  'updateChannelMessage',
  'addChannelMember',
  'updateChannelMember',
];

const U1 = '5f0c3c2e-8a1b-4c3d-9e2f-1a2b3c4d5e6f';
const U2 = '0b7e6a4c-2d1f-4e3a-8b5c-6d7e8f9a0b1c';
const U3 = 'c3d4e5f6-a7b8-4c9d-a0e1-f2a3b4c5d6e7';
const AT = '2025-03-01T10:00:00Z';

const textChunk = { type: 'text', text: 'Hello' };
const CHUNKS = {
  text: textChunk,
  link: { type: 'link', kind: 'email', text: 'someone@example.com' },
  file: { type: 'file', url: 'https://files.example.com/a.pdf', name: 'a.pdf', size: 1024 },
  audio: { type: 'audio', url: 'https://files.example.com/a.mp3', title: 'A song' },
  video: { type: 'video', url: 'https://files.example.com/a.mp4', title: 'A film' },
  image: { type: 'image', url: 'https://files.example.com/a.png' },
};

const message = {
  id: U1,
  channel_id: U2,
  sender_id: U3,
  organization_id: U2,
  created_at: AT,
  updated_at: AT,
  body: { version: 3, chunks: [textChunk] },
};
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

const configurationCreate = {
  name: 'Support mailbox',
  messaging_channel: 'email',
  room_id: U3,
  reply_webhook_url: 'https://gateway.example.com/webhooks/platform',
};

/** A valid request body for every endpoint with a strict body schema. */
const STRICT_BODIES: Record<string, Record<string, unknown>> = {
  createChannelMessage: { body: { version: 3, chunks: [textChunk] } },
  updateMemberNotificationSettings: { mode: 'muted' },
  createChannelStream: {},
  createChannelConfiguration: configurationCreate,
  replaceChannelConfiguration: configurationCreate,
  updateChannelConfiguration: { max_retry_count: 5 },
  createUnifiedMessages: {
    messages: [{ body: 'Hi', thread_id: 't-1', sender_id: 'visitor@example.com', message_id: 'm-1' }],
  },
  closeUnifiedSession: { thread_id: 't-1' },
};

function paths(result: z.ZodSafeParseResult<unknown>): string[] {
  return result.success ? [] : result.error.issues.map((i) => i.path.join('.'));
}

function endpoint(id: string) {
  const found = SPEC_03_ENDPOINTS.find((e) => e.id === id);
  if (!found) throw new Error(`no endpoint ${id}`);
  return found;
}

describe('SPEC_03_ENDPOINTS', () => {
  it('has unique ids and unique method + path', () => {
    const ids = SPEC_03_ENDPOINTS.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    const routes = SPEC_03_ENDPOINTS.map((e) => `${e.method} ${e.path}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it('lists exactly the endpoints of the document', () => {
    expect(new Set(DOCUMENTED).size).toBe(DOCUMENTED.length);
    const listed = SPEC_03_ENDPOINTS.map((e) => `${e.method} ${e.path}`);
    expect([...listed].sort()).toEqual([...DOCUMENTED].sort());
    expect(SPEC_03_ENDPOINTS).toHaveLength(33);
  });

  it('uses lowerCamelCase ids, upstream api, a source and <param> placeholders', () => {
    for (const e of SPEC_03_ENDPOINTS) {
      expect(e.id).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(e.upstream).toBe('api');
      expect(e.source).toMatch(/^03 /);
      expect(e.summary.length).toBeGreaterThan(0);
      for (const segment of e.path.split('/').slice(1)) {
        expect(segment).toMatch(/^(<[a-z_]+>|[a-z0-9_-]+)$/);
      }
    }
  });

  it('checks the list query of channel configurations', () => {
    const query = endpoint('listChannelConfigurations').query;
    expect(query?.safeParse({ ordering: 'modified_at', cursor: 'abc' }).success).toBe(true);
    expect(paths(query!.safeParse({ ordering: 'name' }))).toEqual(['ordering']);
  });

  it('has no response schema for the 204 of DELETE', () => {
    expect(endpoint('deleteChannelConfiguration').response).toBeUndefined();
  });
});

describe('message body version 3', () => {
  it.each(Object.entries(CHUNKS))('parses a %s chunk', (_type, chunk) => {
    expect(MessageChunk.parse(chunk)).toEqual(chunk);
    const body = { body: { version: 3, chunks: [textChunk, chunk] } };
    expect(CreateChannelMessageRequest.safeParse(body).success).toBe(true);
  });

  it('accepts a file chunk without size', () => {
    expect(MessageChunk.safeParse({ type: 'file', url: 'https://x.example/a', name: 'a' }).success).toBe(true);
  });

  it('accepts every link kind', () => {
    for (const kind of ['url', 'phone', 'email']) {
      expect(MessageChunk.safeParse({ type: 'link', kind, text: 'x' }).success).toBe(true);
    }
  });

  it('refuses a wrong chunk naming its path', () => {
    const at = (chunk: unknown) =>
      paths(CreateChannelMessageRequest.safeParse({ body: { version: 3, chunks: [textChunk, chunk] } }));
    expect(at({ type: 'link', kind: 'fax', text: '+1 555' })).toEqual(['body.chunks.1.kind']);
    expect(at({ type: 'sticker', url: 'https://x.example/s.png' })).toEqual(['body.chunks.1.type']);
    expect(at({ type: 'image' })).toEqual(['body.chunks.1.url']);
    expect(at({ type: 'audio', url: 'https://x.example/a.mp3' })).toEqual(['body.chunks.1.title']);
    expect(at({ type: 'file', url: 'https://x.example/a', name: 'a', size: '12' })).toEqual(['body.chunks.1.size']);
    const extra = CreateChannelMessageRequest.safeParse({
      body: { version: 3, chunks: [textChunk, { ...textChunk, bold: true }] },
    });
    expect(paths(extra)).toEqual(['body.chunks.1']);
    expect(extra.error?.issues[0]?.message).toContain('bold');
  });

  it.each([1, 2])('refuses deprecated version %i, saying so', (version) => {
    const result = CreateChannelMessageRequest.safeParse({ body: { version, chunks: [textChunk] } });
    expect(paths(result)).toEqual(['body.version']);
    expect(result.error?.issues[0]?.message).toBe(`Message body version ${version} is deprecated; use version 3.`);
  });

  it('refuses any other version, or none', () => {
    for (const body of [{ version: 4 }, { version: '3' }, {}]) {
      const result = MessageBody.safeParse(body);
      expect(paths(result)).toEqual(['version']);
      expect(result.error?.issues[0]?.message).toBe('Message body version must equal 3.');
    }
  });

  it('requires only version; chunks, when given, hold at least one', () => {
    expect(CreateChannelMessageRequest.safeParse({ body: { version: 3 } }).success).toBe(true);
    expect(paths(MessageBody.safeParse({ version: 3, chunks: [] }))).toEqual(['chunks']);
    expect(paths(CreateChannelMessageRequest.safeParse({}))).toEqual(['body']);
  });

  it('takes a client-generated id and the notify fields', () => {
    const request = {
      id: U1,
      body: { version: 3, chunks: [textChunk] },
      notify_users: [U2, U3],
      notify_teams: ['team-1'],
      notify_channel: true,
    };
    expect(CreateChannelMessageRequest.parse(request)).toEqual(request);
    expect(paths(CreateChannelMessageRequest.safeParse({ ...request, id: 'not-a-uuid' }))).toEqual(['id']);
    expect(paths(CreateChannelMessageRequest.safeParse({ ...request, notify_users: ['bob'] }))).toEqual([
      'notify_users.0',
    ]);
  });

  it('reads stored bodies of any version and chunk type', () => {
    const old = { ...message, body: { version: 1, text: 'legacy' } };
    expect(ChannelMessage.parse(old)).toEqual(old);
    const future = { ...message, body: { version: 3, chunks: [{ type: 'poll', question: '?' }] } };
    expect(ChannelMessage.parse(future)).toEqual(future);
  });
});

describe('strict requests', () => {
  it('has a sample for every strict body', () => {
    const strict = SPEC_03_ENDPOINTS.filter((e) => e.body && !PAYLOAD_NOT_SHOWN.includes(e.id)).map((e) => e.id);
    expect(strict.sort()).toEqual(Object.keys(STRICT_BODIES).sort());
  });

  it.each(Object.entries(STRICT_BODIES))('%s accepts its sample and refuses an unknown field by name', (id, body) => {
    const schema = endpoint(id).body!;
    expect(schema.safeParse(body).success).toBe(true);
    const result = schema.safeParse({ ...body, surprise_field: 1 });
    expect(result.success).toBe(false);
    const issue = result.error?.issues.find((i) => i.code === 'unrecognized_keys');
    expect(issue?.message).toContain('surprise_field');
    expect(issue?.path).toEqual([]);
  });

  it('accepts no payload at all for create_stream', () => {
    expect(NoPayload.safeParse(undefined).success).toBe(true);
  });

  it('refuses a notification mode that does not exist', () => {
    expect(paths(UpdateNotificationSettingsRequest.safeParse({ mode: 'silent' }))).toEqual(['mode']);
    expect(paths(UpdateNotificationSettingsRequest.safeParse({}))).toEqual(['mode']);
  });

  it.each(PAYLOAD_NOT_SHOWN)('%s takes any JSON object (payload not shown) and keeps it whole', (id) => {
    const schema = endpoint(id).body!;
    const body = { name: 'x', anything: { nested: [1, 2] } };
    expect(schema.parse(body)).toEqual(body);
    expect(schema.safeParse('text').success).toBe(false);
  });
});

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
