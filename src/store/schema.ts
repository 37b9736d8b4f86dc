/**
 * The store's tables. Change this file, then `npm run db:generate` writes the
 * SQL migration into migrations/; never edit a migration that has shipped.
 * Times are Unix milliseconds (integers) so ordering and arithmetic are exact.
 */
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

const now = sql`(cast(unixepoch('subsec') * 1000 as integer))`;

/** One platform channel configuration per connector, with its webhook secrets. */
export const channelRegistrations = sqliteTable('channel_registrations', {
  connector: text('connector').primaryKey(),
  configId: text('config_id').notNull(),
  name: text('name').notNull(),
  roomId: text('room_id').notNull(),
  replyWebhookUrl: text('reply_webhook_url').notNull(),
  secret: text('secret').notNull(),
  /** The secret before the last rotation, valid until `previousSecretExpiresAt`. */
  previousSecret: text('previous_secret'),
  previousSecretExpiresAt: integer('previous_secret_expires_at'),
  createdAt: integer('created_at').notNull().default(now),
  updatedAt: integer('updated_at').notNull().default(now),
});

/** A small key–value store per connector (cursors such as an IMAP UID). */
export const connectorState = sqliteTable(
  'connector_state',
  {
    connector: text('connector').notNull(),
    key: text('key').notNull(),
    /** JSON text. */
    value: text('value').notNull(),
    updatedAt: integer('updated_at').notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.connector, t.key] })],
);

export const JOB_STATUSES = ['queued', 'running', 'done', 'dead'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** The durable job queue: every external side effect is a row here. */
export const jobs = sqliteTable(
  'jobs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    kind: text('kind').notNull(),
    /** JSON text. */
    payload: text('payload').notNull(),
    status: text('status', { enum: JOB_STATUSES }).notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull(),
    /** Not claimed before this time. */
    runAt: integer('run_at').notNull().default(now),
    /** The worker holding the job and until when; an expired lease is claimable again. */
    leaseOwner: text('lease_owner'),
    leaseUntil: integer('lease_until'),
    lastError: text('last_error'),
    createdAt: integer('created_at').notNull().default(now),
    updatedAt: integer('updated_at').notNull().default(now),
    finishedAt: integer('finished_at'),
  },
  (t) => [index('jobs_due').on(t.kind, t.status, t.runAt), index('jobs_status').on(t.status)],
);
