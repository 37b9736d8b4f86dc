/**
 * Deliveries stored before the dedup index led with the event's time (SQLite
 * up to migration 0013, PostgreSQL up to 0006), and what the upgrade must make
 * of them: each original keeps deduplicating the event it holds.
 */
import { expect } from 'vitest';
import type { Store } from '../../src/store/store.ts';
import { messageCreatedEnvelope } from '../support/events.ts';

const MESSAGE_AT = '2026-11-20T09:15:02.123456Z';
const SUGGESTION_AT = '2026-11-21T10:00:00Z';
const message = messageCreatedEnvelope({ threadId: 't-1', messageId: '3f1c6a52-8d7e-4b7a-9f0e-2c4d5e6f7a8b', createdAt: MESSAGE_AT });
const suggestion = {
  event_type: 'reply_suggestion_created',
  thread_id: 't-2',
  reply_suggestion: { id: '5b2d9c41-1e3f-4a6b-8c7d-9e0f1a2b3c4d', created_at: SUGGESTION_AT, suggestion: 'Try turning it off and on.' },
};
const OLD_ROWS: [string, string | null, string, string, number][] = [
  // event_type, dedup_key, body, status, body_truncated
  ['message_created', `message_created:${message.message.id}`, JSON.stringify(message), 'delivered', 0],
  ['reply_suggestion_created', `reply_suggestion_created:${suggestion.reply_suggestion.id}`, JSON.stringify(suggestion), 'accepted', 0],
  // Delivered, then cut at the stored-body cap: no longer JSON.
  ['message_created', 'message_created:9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a', JSON.stringify(message).slice(0, 40), 'delivered', 1],
  // Refused: no dedup key, nothing to fill.
  ['message_created', null, '{"event_type":', 'rejected', 1],
];

export async function storeOldDeliveries(store: Store): Promise<void> {
  await store.write(async (tx) => {
    for (const [eventType, dedupKey, body, status, truncated] of OLD_ROWS) {
      await tx.sql.run(
        `insert into deliveries (connector, event_type, dedup_key, body, body_truncated, headers, verification, status, received_at, updated_at)
         values ('desk', ?, ?, ?, ?, '{}', 'valid', ?, 1000, 1000)`,
        [eventType, dedupKey, body, truncated, status],
      );
    }
  });
}

/** The times filled in, and the same events sent again found as stored: their originals refuse them. */
export async function expectUpgraded(store: Store): Promise<void> {
  expect(await store.read.sql.all('select dedup_key, event_at from deliveries order by id')).toEqual([
    { dedup_key: OLD_ROWS[0]![1], event_at: MESSAGE_AT },
    { dedup_key: OLD_ROWS[1]![1], event_at: SUGGESTION_AT },
    { dedup_key: OLD_ROWS[2]![1], event_at: '' },
    { dedup_key: null, event_at: null },
  ]);
  const again = (eventAt: string, dedupKey: string) =>
    store.write((tx) =>
      tx.deliveries.insertOriginal(
        { connector: 'desk', eventType: 'message_created', dedupKey, eventAt, duplicateOf: null, threadId: 't', chatId: null, body: '{}', bodyTruncated: false, headers: {}, verification: 'valid', status: 'accepted', error: null },
        2000,
      ).then((stored) => stored?.id),
    );
  expect(await again(MESSAGE_AT, OLD_ROWS[0]![1]!)).toBeUndefined();
  expect(await again(SUGGESTION_AT, OLD_ROWS[1]![1]!)).toBeUndefined();
  expect(await store.read.deliveries.originalOf('desk', MESSAGE_AT, OLD_ROWS[0]![1]!)).toBe(1);
  // A new event is stored, and nothing else was.
  const fresh = await again('2026-11-27T08:00:00Z', 'message_created:0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d');
  expect(await store.read.sql.all('select id, event_at from deliveries where id > 4')).toEqual([{ id: fresh, event_at: '2026-11-27T08:00:00Z' }]);
}
