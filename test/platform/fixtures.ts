/** Bodies the scripted platform answers with, shaped as spec 03 and spec 01 describe them. */
import { pino, type Logger } from 'pino';

export const ORG_ID = '0b4f1c9e-5d7a-4e2b-9c3d-1a2b3c4d5e6f';
export const ROOM_ID = '7d0c2e4a-8b1f-4c6d-9e2a-3b4c5d6e7f80';
export const CONFIG_ID = 'c1a2b3c4-d5e6-4f70-8a9b-0c1d2e3f4a5b';
export const CHAT_ID = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';
export const TOKEN = 'tok_s3cr3t_value_for_tests';

export function configuration(n = 0, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `c1a2b3c4-d5e6-4f70-8a9b-0c1d2e3f4a${String(n).padStart(2, '0')}`,
    name: `Support inbox ${n}`,
    messaging_channel: 'email',
    organization_id: ORG_ID,
    room_id: ROOM_ID,
    reply_webhook_url: 'https://gateway.example/webhooks/platform',
    max_retry_count: 3,
    created_at: '2025-01-02T03:04:05Z',
    modified_at: '2025-01-02T03:04:05Z',
    ...extra,
  };
}

export const createConfigurationBody = {
  name: 'Support inbox',
  messaging_channel: 'email',
  room_id: ROOM_ID,
  reply_webhook_url: 'https://gateway.example/webhooks/platform',
  webhook_secret_key: 'a'.repeat(64),
};

export const createMessagesBody = {
  messages: [{ body: 'Hello, my order is late.', thread_id: 'thread-1', sender_id: 'ann@example.com', message_id: 'm-1' }],
};

export const createMessagesResponse = {
  chat_id: CHAT_ID,
  mapping_id: '11111111-2222-4333-8444-555555555555',
  message_ids: ['66666666-7777-4888-9999-aaaaaaaaaaaa'],
  messages_created: 1,
  is_new_session: true,
};

export const chat = {
  id: CHAT_ID,
  created_at: '2025-01-02T03:04:05Z',
  updated_at: '2025-01-02T03:05:05Z',
  waiting_started_at: null,
  is_ended: true,
  ended_at: '2025-01-02T03:05:05Z',
  room_id: ROOM_ID,
  room_name: 'Support',
  room_organization_id: ORG_ID,
  chat_type: 'external',
  message_count: 2,
  user_message_count: 1,
  visitor_message_count: 1,
  is_waiting: false,
  is_pending: false,
  duration: 60,
  active_duration: 60,
  messaging_channel: 'email',
};

/** A debug-level pino logger whose lines are kept, raw and parsed. */
export function capturingLogger(): { logger: Logger; raw: string[]; lines: () => Record<string, unknown>[] } {
  const raw: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void raw.push(line) });
  return { logger, raw, lines: () => raw.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l)) };
}
