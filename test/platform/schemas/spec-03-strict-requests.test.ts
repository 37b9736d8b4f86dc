/** Spec 03 request bodies: strict ones refuse unknown fields by name, not-shown payloads pass whole. */
import { describe, expect, it } from 'vitest';
import { SPEC_03_ENDPOINTS } from '../../../src/platform/endpoints/spec-03.ts';
import { NoPayload, UpdateNotificationSettingsRequest } from '../../../src/platform/schemas/channel-messaging.ts';
import { endpoint, paths, textChunk, U3 } from './spec-03-support.ts';

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
