/**
 * The store's tables (the inbound flow's in schema-inbound.ts, exported here
 * too). Change either file, then `npm run db:generate` writes the SQL
 * migration into migrations/; never edit a migration that has shipped.
 * Times are Unix milliseconds (integers) so ordering and arithmetic are exact.
 */
import { sql } from 'drizzle-orm';
import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { now } from './schema-time.ts';
import { ORDERED_UNFINISHED_JOB } from './sqlite/order-index.ts';
import { ATTEMPT_OUTCOMES, DELIVERY_STATUSES, JOB_STATUSES, RECEIPT_STATUSES } from './statuses.ts';

export * from './statuses.ts';
export * from './schema-inbound.ts';

/** A job waiting for its turn: the condition of the claim's index. */
const QUEUED_JOB = sql`status = 'queued'`;

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

/**
 * Who runs a one-at-a-time task (a connector's poller: a mailbox, a ticket
 * queue) across replicas: the holder until `expires_at`, renewed while held.
 * `generation` goes up with every new holder; writes of the task check it
 * (a fencing token), so a stale holder cannot write after a takeover.
 */
export const leases = sqliteTable('leases', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  generation: integer('generation').notNull(),
  expiresAt: integer('expires_at').notNull(),
});

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
    /** The attempt cap (a safety; the deadline is what normally ends the retries). */
    maxAttempts: integer('max_attempts').notNull(),
    /** How long the job is retried after it was queued or retried by hand (`jobs.retry_for`); null for jobs older than the setting. */
    retryForMs: integer('retry_for_ms'),
    /** When it is given up: no try starts after this unless Retry-After asked for later; null: only the cap ends it. */
    giveUpAt: integer('give_up_at'),
    /** Not claimed before this time. */
    runAt: integer('run_at').notNull().default(now),
    /** The worker holding the job and until when; an expired lease is claimable again. */
    leaseOwner: text('lease_owner'),
    leaseUntil: integer('lease_until'),
    lastError: text('last_error'),
    createdAt: integer('created_at').notNull().default(now),
    updatedAt: integer('updated_at').notNull().default(now),
    finishedAt: integer('finished_at'),
    /**
     * Jobs with the same key run one at a time, in id order, on any replica: a claim passes over a job while an
     * earlier one of its key is running or due (a thread's deliveries; a thread's platform posts). Null: no order.
     */
    orderKey: text('order_key'),
    /**
     * The lane a claim takes the job in, with the lane's own concurrency (jobs/runner.ts): a platform post's
     * connector, so that one connector's backlog never holds back another's. Null: the kind has no lanes.
     */
    lane: text('lane'),
  },
  // The claim's and the order check's indexes hold live jobs only: a finished job leaves them, so they stay a few
  // pages however long the history (docs/benchmarks.md at 65810b0, "Indexes of live jobs"). Their conditions and keys leave out
  // what a claim changes, so a claim takes a job out of jobs_due and does not touch jobs_order: SQLite rewrites an
  // entry whenever a column of its key or of its condition changes (docs/benchmarks.md at 65810b0, "Indexes a claim
  // leaves alone"). The queries name `status = 'queued'` and ORDERED_UNFINISHED_JOB, which is how SQLite knows a partial
  // index answers them.
  (t) => [
    // A kind's queue, a lane's in due order (null: the kind has no lanes; jobs/lanes.ts).
    index('jobs_due').on(t.kind, t.lane, t.runAt).where(QUEUED_JOB),
    index('jobs_status').on(t.status, t.kind),
    index('jobs_order').on(t.orderKey).where(sql.raw(ORDERED_UNFINISHED_JOB)),
  ],
);

/** Every webhook the platform sent (or that claimed to be from it), and what became of it. */
export const deliveries = sqliteTable(
  'deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    connector: text('connector').notNull(),
    eventType: text('event_type'),
    /** `event_type:id` of a verified event; null for rejected ones. */
    dedupKey: text('dedup_key'),
    /**
     * The event's own time as the platform wrote it (the message's or the reply suggestion's `created_at`), the
     * dedup index's key before `dedup_key`: that index then grows at its end instead of at a random page a webhook.
     * Null for rejected ones; '' for deliveries stored before it existed whose body no longer says it.
     */
    eventAt: text('event_at'),
    /** The original of a `duplicate`. */
    duplicateOf: integer('duplicate_of'),
    threadId: text('thread_id'),
    chatId: text('chat_id'),
    /** Raw body as received (UTF-8 text), possibly cut at the stored-body cap. */
    body: text('body').notNull(),
    bodyTruncated: integer('body_truncated').notNull().default(0),
    /** JSON object of the request headers, signature kept. */
    headers: text('headers').notNull(),
    /** `valid`, `valid-previous-secret`, or the problem (`TG_SIGNATURE_…`). */
    verification: text('verification').notNull(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull(),
    error: text('error'),
    /** What the connector's deliver returned (an e-mail Message-ID…). */
    externalId: text('external_id'),
    jobId: integer('job_id'),
    receivedAt: integer('received_at').notNull().default(now),
    updatedAt: integer('updated_at').notNull().default(now),
  },
  (t) => [
    uniqueIndex('deliveries_dedup')
      .on(t.connector, t.eventAt, t.dedupKey)
      .where(sql`dedup_key is not null and duplicate_of is null`),
    index('deliveries_status').on(t.status, t.receivedAt),
    index('deliveries_received').on(t.receivedAt),
  ],
);

/** Every time a delivery was handed to its connector: first tries, retries and replays. */
export const deliveryAttempts = sqliteTable(
  'delivery_attempts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    delivery: integer('delivery')
      .notNull()
      .references(() => deliveries.id, { onDelete: 'cascade' }),
    jobId: integer('job_id'),
    /** The job's attempt number (1 for the first try of that job). */
    attempt: integer('attempt').notNull(),
    /** 1 when an operator asked for it (replay), bypassing dedup. */
    replay: integer('replay').notNull().default(0),
    startedAt: integer('started_at').notNull(),
    endedAt: integer('ended_at'),
    outcome: text('outcome', { enum: ATTEMPT_OUTCOMES }).notNull(),
    error: text('error'),
    externalId: text('external_id'),
  },
  (t) => [index('delivery_attempts_delivery').on(t.delivery)],
);

/**
 * What the other side reported of a message a connector sent (a chat app's delivered and read ticks, or its
 * failure), by the id it gave the message: a delivery's `external_id`. Only the furthest status is kept (sent <
 * delivered < read < failed), so a report that comes late or twice changes nothing (receipts-repo.ts).
 */
export const deliveryReceipts = sqliteTable(
  'delivery_receipts',
  {
    connector: text('connector').notNull(),
    externalId: text('external_id').notNull(),
    status: text('status', { enum: RECEIPT_STATUSES }).notNull(),
    /** When it happened, by the other side's clock. */
    at: integer('at').notNull(),
    /** Why it failed, in the other side's words. */
    reason: text('reason'),
    /** When the gateway recorded the status kept (retention prunes by it). */
    updatedAt: integer('updated_at').notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.connector, t.externalId] }), index('delivery_receipts_updated').on(t.updatedAt)],
);

/**
 * Unified-messaging posts made through the proxy, by message_id: a POST whose
 * message_ids were all seen before is answered with the stored original
 * instead of posting again.
 */
export const proxyMessagePosts = sqliteTable(
  'proxy_message_posts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    configId: text('config_id').notNull(),
    messageId: text('message_id').notNull(),
    status: integer('status').notNull(),
    /** The platform's answer (JSON text). */
    response: text('response').notNull(),
    createdAt: integer('created_at').notNull().default(now),
  },
  (t) => [uniqueIndex('proxy_message_posts_key').on(t.configId, t.messageId), index('proxy_message_posts_created').on(t.createdAt)],
);

/**
 * Files connectors keep for the platform's agents (mail attachments), served at `/files/<id>` through signed,
 * expiring links. In the store so every replica serves them and a backup holds them; pruned once expired.
 */
export const files = sqliteTable(
  'files',
  {
    /** Random (128 bits, base64url): unguessable, though the link's signature is what authorises a download. */
    id: text('id').primaryKey(),
    connector: text('connector').notNull(),
    filename: text('filename').notNull(),
    contentType: text('content_type').notNull(),
    /** Bytes of `content`. */
    size: integer('size').notNull(),
    /** Hex SHA-256 of `content` (the download's ETag). */
    sha256: text('sha256').notNull(),
    content: blob('content', { mode: 'buffer' }).notNull(),
    createdAt: integer('created_at').notNull().default(now),
    /** Links stop working at this time, and retention deletes the row after it. */
    expiresAt: integer('expires_at').notNull(),
  },
  // By content: the same file kept again for the same connector (a mail read twice) reuses the row (bridge/files.ts).
  (t) => [index('files_expires').on(t.expiresAt), index('files_connector_sha256').on(t.connector, t.sha256)],
);
