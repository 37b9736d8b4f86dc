/**
 * The inbound flow's tables (schema.ts has the rest and re-exports these):
 * a connector's threads and their external references, the messages it
 * submitted, those it skipped, and every platform POST they took part in.
 * Change this file, then `npm run db:generate`, as for schema.ts.
 */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { now } from './schema-time.ts';
import { INBOUND_KINDS, INBOUND_OUTCOMES, INBOUND_STATUSES } from './statuses.ts';

/** One conversation of a connector: its key, the platform thread_id and the latest chat. */
export const threads = sqliteTable(
  'threads',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    connector: text('connector').notNull(),
    threadKey: text('thread_key').notNull(),
    /** The platform's thread_id (≤ 512 characters), derived from connector and key. */
    threadId: text('thread_id').notNull(),
    chatId: text('chat_id'),
    mappingId: text('mapping_id'),
    /** 1 after close_session was queued, back to 0 with the next message. */
    closed: integer('closed').notNull().default(0),
    createdAt: integer('created_at').notNull().default(now),
    updatedAt: integer('updated_at').notNull().default(now),
  },
  (t) => [
    uniqueIndex('threads_key').on(t.connector, t.threadKey),
    uniqueIndex('threads_thread_id').on(t.connector, t.threadId),
    index('threads_chat').on(t.chatId),
  ],
);

/** External references of a thread (e-mail Message-IDs, ticket URLs). */
export const threadReferences = sqliteTable(
  'thread_references',
  {
    connector: text('connector').notNull(),
    reference: text('reference').notNull(),
    thread: integer('thread')
      .notNull()
      .references(() => threads.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.connector, t.reference] }), index('thread_references_thread').on(t.thread)],
);

/**
 * Every external message submitted by a connector, until and after it reached
 * the platform — and every close request, so that a thread's messages and
 * closes reach the platform in the order they were asked for.
 */
export const inboundMessages = sqliteTable(
  'inbound_messages',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    connector: text('connector').notNull(),
    /** The external system's message id: `(connector, external_id)` is the dedup key. */
    externalId: text('external_id').notNull(),
    kind: text('kind', { enum: INBOUND_KINDS }).notNull().default('message'),
    thread: integer('thread')
      .notNull()
      .references(() => threads.id),
    senderId: text('sender_id').notNull(),
    senderName: text('sender_name'),
    senderType: text('sender_type', { enum: ['visitor', 'user'] }).notNull().default('visitor'),
    body: text('body').notNull(),
    fullText: text('full_text'),
    /** JSON object of visitor variables, or null. */
    variables: text('variables'),
    skipWaitingState: integer('skip_waiting_state').notNull().default(0),
    closeSession: integer('close_session').notNull().default(0),
    status: text('status', { enum: INBOUND_STATUSES }).notNull().default('pending'),
    chatId: text('chat_id'),
    platformMessageId: text('platform_message_id'),
    isNewSession: integer('is_new_session'),
    lastError: text('last_error'),
    jobId: integer('job_id'),
    receivedAt: integer('received_at').notNull().default(now),
    postedAt: integer('posted_at'),
  },
  (t) => [
    uniqueIndex('inbound_dedup').on(t.connector, t.externalId),
    index('inbound_thread_status').on(t.thread, t.status, t.id),
    index('inbound_status').on(t.status),
  ],
);

/** External messages a connector read and deliberately did not post (auto-replies, bounces, its own mail). */
export const skippedInbound = sqliteTable(
  'skipped_inbound',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    connector: text('connector').notNull(),
    externalId: text('external_id').notNull(),
    senderId: text('sender_id'),
    /** A short description (a subject line), no body. */
    summary: text('summary'),
    code: text('code').notNull(),
    reason: text('reason').notNull(),
    receivedAt: integer('received_at').notNull().default(now),
  },
  (t) => [uniqueIndex('skipped_dedup').on(t.connector, t.externalId), index('skipped_received').on(t.receivedAt)],
);

/** Every platform POST an inbound message (or close request) took part in. */
export const inboundAttempts = sqliteTable(
  'inbound_attempts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    inbound: integer('inbound')
      .notNull()
      .references(() => inboundMessages.id, { onDelete: 'cascade' }),
    jobId: integer('job_id'),
    attempt: integer('attempt').notNull(),
    startedAt: integer('started_at').notNull(),
    endedAt: integer('ended_at').notNull(),
    outcome: text('outcome', { enum: INBOUND_OUTCOMES }).notNull(),
    /** The platform's HTTP status, when it answered. */
    status: integer('status'),
    error: text('error'),
    chatId: text('chat_id'),
  },
  (t) => [index('inbound_attempts_inbound').on(t.inbound)],
);
