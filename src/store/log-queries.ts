/**
 * Reading the delivery log: deliveries and inbound messages by filter, newest
 * first, with id cursors (`before`, `after`), for the CLI and the admin API alike;
 * and the ids of every match, oldest first, for bulk replays and retries.
 */
import type { Sql } from './sql.ts';
import type { DeliveryStatus, InboundStatus } from './schema.ts';
import { deliveryStatusIn } from './delivery-status-sql.ts';
import { eq, MAX_PAGE, oneOf, where } from './sql-filters.ts';

export interface DeliveryFilter {
  status?: DeliveryStatus[];
  connector?: string;
  event?: string;
  /** The platform thread_id. */
  thread?: string;
  /** Unix ms, inclusive. */
  since?: number;
  /** Unix ms, exclusive. */
  until?: number;
  /** Only ids below this (the cursor of the next page). */
  before?: number;
  /** Only ids above this (what came since: `--follow`). */
  after?: number;
  limit?: number;
}

export interface DeliverySummary {
  id: number;
  connector: string;
  eventType: string | null;
  status: DeliveryStatus;
  threadId: string | null;
  chatId: string | null;
  verification: string;
  error: string | null;
  externalId: string | null;
  attempts: number;
  receivedAt: number;
  updatedAt: number;
}

export interface InboundFilter {
  status?: InboundStatus[];
  connector?: string;
  thread?: string;
  since?: number;
  until?: number;
  before?: number;
  after?: number;
  limit?: number;
}

export interface InboundSummary {
  id: number;
  connector: string;
  kind: string;
  externalId: string;
  threadId: string;
  senderId: string;
  status: InboundStatus;
  chatId: string | null;
  lastError: string | null;
  attempts: number;
  receivedAt: number;
  postedAt: number | null;
}

export { MAX_PAGE };

function deliveryWhere(db: Sql, f: DeliveryFilter): { sql: string; params: unknown[] } {
  return where([
    deliveryStatusIn(db.dialect, f.status, 'd'),
    eq('d.connector', f.connector),
    eq('d.event_type', f.event),
    eq('d.thread_id', f.thread),
    eq('d.received_at', f.since, '>='),
    eq('d.received_at', f.until, '<'),
    eq('d.id', f.before, '<'),
    eq('d.id', f.after, '>'),
  ]);
}

export async function listDeliveries(db: Sql, f: DeliveryFilter): Promise<DeliverySummary[]> {
  const { sql, params } = deliveryWhere(db, f);
  const rows = await db.all<DeliverySummary>(
    `select d.id, d.connector, d.event_type as "eventType", d.status, d.thread_id as "threadId", d.chat_id as "chatId",
       d.verification, d.error, d.external_id as "externalId", d.received_at as "receivedAt", d.updated_at as "updatedAt",
       (select count(*) from delivery_attempts a where a.delivery = d.id) as attempts
     from deliveries d ${sql} order by d.id desc limit ?`,
    [...params, Math.min(f.limit ?? 50, MAX_PAGE)],
  );
  return rows.map((r) => ({ ...r, attempts: Number(r.attempts) }));
}

/** The ids of every delivery the filter matches (all of them, `limit` ignored), oldest first. */
export async function matchingDeliveryIds(db: Sql, f: DeliveryFilter): Promise<number[]> {
  const { sql, params } = deliveryWhere(db, f);
  const rows = await db.all<{ id: number }>(`select d.id from deliveries d ${sql} order by d.id asc`, params);
  return rows.map((r) => r.id);
}

function inboundWhere(f: InboundFilter): { sql: string; params: unknown[] } {
  return where([
    oneOf('m.status', f.status),
    eq('m.connector', f.connector),
    eq('t.thread_id', f.thread),
    eq('m.received_at', f.since, '>='),
    eq('m.received_at', f.until, '<'),
    eq('m.id', f.before, '<'),
    eq('m.id', f.after, '>'),
  ]);
}

export async function listInbound(db: Sql, f: InboundFilter): Promise<InboundSummary[]> {
  const { sql, params } = inboundWhere(f);
  const rows = await db.all<InboundSummary>(
    `select m.id, m.connector, m.kind, m.external_id as "externalId", t.thread_id as "threadId", m.sender_id as "senderId",
       m.status, m.chat_id as "chatId", m.received_at as "receivedAt", m.posted_at as "postedAt",
       -- A pending message that failed before shows why: its last attempt's error until it has one of its own.
       case when m.status = 'pending' then coalesce(m.last_error, (select a.error from inbound_attempts a where a.inbound = m.id and a.error is not null order by a.id desc limit 1))
         else m.last_error end as "lastError",
       (select count(*) from inbound_attempts a where a.inbound = m.id) as attempts
     from inbound_messages m join threads t on t.id = m.thread ${sql} order by m.id desc limit ?`,
    [...params, Math.min(f.limit ?? 50, MAX_PAGE)],
  );
  return rows.map((r) => ({ ...r, attempts: Number(r.attempts) }));
}

/** The ids of every inbound message the filter matches (all of them, `limit` ignored), oldest first. */
export async function matchingInboundIds(db: Sql, f: InboundFilter): Promise<number[]> {
  const { sql, params } = inboundWhere(f);
  const rows = await db.all<{ id: number }>(`select m.id from inbound_messages m join threads t on t.id = m.thread ${sql} order by m.id asc`, params);
  return rows.map((r) => r.id);
}
