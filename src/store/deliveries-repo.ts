/**
 * Webhook deliveries received from the platform: accepted, duplicate or
 * rejected on arrival, then delivered, skipped (the connector had no use
 * for it), failed (retrying) or dead as the
 * connector's job runs.
 */
import { deliveryStatusIn } from './delivery-status-sql.ts';
import { DELIVERY_BY_ID, INSERT_ORIGINAL, OPEN_ATTEMPT_READING, RECORD_OUTCOME, SET_DELIVERY_JOB, type OpenedAttempt, type StoredOriginal } from './delivery-statements.ts';
import type { Sql, SqlDialect } from './sql.ts';
import type { DeliveryStatus } from './schema.ts';

export interface NewDelivery {
  connector: string;
  eventType: string | null;
  dedupKey: string | null;
  /** The event's own time as sent, the dedup index's key before `dedupKey`; null with `dedupKey`. */
  eventAt: string | null;
  duplicateOf: number | null;
  threadId: string | null;
  chatId: string | null;
  body: string;
  bodyTruncated: boolean;
  headers: Record<string, unknown>;
  verification: string;
  status: DeliveryStatus;
  error: string | null;
}

/** A text column's length in UTF-8 bytes, in each dialect. */
const bytesOf = (dialect: SqlDialect, column: string) => (dialect === 'postgres' ? `octet_length(${column})` : `length(cast(${column} as blob))`);

/** The bytes of a record counted against a budget: body, headers and error (SQL of `storedBytes`). */
const storedBytesSql = (dialect: SqlDialect) => `${bytesOf(dialect, 'body')} + ${bytesOf(dialect, 'headers')} + coalesce(${bytesOf(dialect, 'error')}, 0)`;

export function storedBytes(d: Pick<NewDelivery, 'body' | 'headers' | 'error'>): number {
  return Buffer.byteLength(d.body) + Buffer.byteLength(JSON.stringify(d.headers)) + (d.error === null ? 0 : Buffer.byteLength(d.error));
}

export interface DeliveryRow extends NewDelivery {
  id: number;
  externalId: string | null;
  jobId: number | null;
  receivedAt: number;
  updatedAt: number;
}

interface RawDelivery {
  id: number;
  connector: string;
  event_type: string | null;
  dedup_key: string | null;
  event_at: string | null;
  duplicate_of: number | null;
  thread_id: string | null;
  chat_id: string | null;
  body: string;
  body_truncated: number;
  headers: string;
  verification: string;
  status: DeliveryStatus;
  error: string | null;
  external_id: string | null;
  job_id: number | null;
  received_at: number;
  updated_at: number;
}

const toDelivery = (r: RawDelivery): DeliveryRow => ({
  id: r.id,
  connector: r.connector,
  eventType: r.event_type,
  dedupKey: r.dedup_key,
  eventAt: r.event_at,
  duplicateOf: r.duplicate_of,
  threadId: r.thread_id,
  chatId: r.chat_id,
  body: r.body,
  bodyTruncated: r.body_truncated === 1,
  headers: JSON.parse(r.headers) as Record<string, unknown>,
  verification: r.verification,
  status: r.status,
  error: r.error,
  externalId: r.external_id,
  jobId: r.job_id,
  receivedAt: r.received_at,
  updatedAt: r.updated_at,
});

export class DeliveriesRepo {
  readonly #db: Sql;

  constructor(db: Sql) {
    this.#db = db;
  }

  /** The id of the first delivery of this event (its time and dedup key), if any. */
  async originalOf(connector: string, eventAt: string, dedupKey: string): Promise<number | undefined> {
    const row = await this.#db.get<{ id: number }>(
      `select id from deliveries where connector = ? and event_at = ? and dedup_key = ? and duplicate_of is null`,
      [connector, eventAt, dedupKey],
    );
    return row?.id;
  }

  /**
   * Records `d` as a duplicate of its event's original, found by the statement itself (deliveries_dedup), so that the
   * write need not wait for a look-up first: the original's row must be stored (this write's `insertOriginal` found it).
   */
  async insertDuplicate(d: Omit<NewDelivery, 'duplicateOf' | 'status'> & { dedupKey: string; eventAt: string }, now: number): Promise<number> {
    return (await this.#db.insert(
      `insert into deliveries (connector, event_type, dedup_key, event_at, duplicate_of, thread_id, chat_id, body,
         body_truncated, headers, verification, status, error, received_at, updated_at)
       select ?, ?, ?, ?, (select id from deliveries where connector = ? and event_at = ? and dedup_key = ? and duplicate_of is null),
         ?, ?, ?, ?, ?, ?, 'duplicate', ?, ?, ?`,
      [
        d.connector, d.eventType, d.dedupKey, d.eventAt, d.connector, d.eventAt, d.dedupKey, d.threadId, d.chatId, d.body,
        d.bodyTruncated ? 1 : 0, JSON.stringify(d.headers), d.verification, d.error, now, now,
      ],
    )) as number;
  }

  async insert(d: NewDelivery, now: number): Promise<number> {
    return (await this.#db.insert(
      `insert into deliveries (connector, event_type, dedup_key, event_at, duplicate_of, thread_id, chat_id, body,
         body_truncated, headers, verification, status, error, received_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        d.connector, d.eventType, d.dedupKey, d.eventAt, d.duplicateOf, d.threadId, d.chatId, d.body, d.bodyTruncated ? 1 : 0,
        JSON.stringify(d.headers), d.verification, d.status, d.error, now, now,
      ],
    )) as number;
  }

  /**
   * Inserts `d`, the first of its event (`duplicateOf` null), unless that event has its original already: then
   * nothing is stored and the answer is undefined. One statement against deliveries_dedup instead of a look-up and
   * an insert; on PostgreSQL it also reserves the id of the delivery's job (delivery-statements.ts).
   */
  insertOriginal(d: NewDelivery & { duplicateOf: null }, now: number): Promise<StoredOriginal | undefined> {
    return this.#db.merged(INSERT_ORIGINAL, [
      d.connector, d.eventType, d.dedupKey, d.eventAt, d.threadId, d.chatId, d.body, d.bodyTruncated ? 1 : 0, JSON.stringify(d.headers),
      d.verification, d.status, d.error, now,
    ]);
  }

  setJob(id: number, jobId: number): Promise<void> {
    return this.#db.merged(SET_DELIVERY_JOB, [id, jobId]);
  }

  async byId(id: number): Promise<DeliveryRow | undefined> {
    const r = (await this.#db.merged(DELIVERY_BY_ID, id)) as RawDelivery | undefined;
    return r && toDelivery(r);
  }

  /**
   * A claim's look at delivery `id`: an attempt opened on it and what the run sends (its id and body), in one
   * statement (merged with the claim's other jobs); undefined when the delivery is gone (nothing opened).
   */
  openAttempt(id: number, jobId: number, attempt: number, replay: boolean, now: number): Promise<OpenedAttempt | undefined> {
    return this.#db.merged(OPEN_ATTEMPT_READING, [id, jobId, attempt, replay ? 1 : 0, now]);
  }

  recordOutcome(id: number, status: DeliveryStatus, error: string | null, externalId: string | null, now: number): Promise<void> {
    return this.#db.merged(RECORD_OUTCOME, [id, status, error, externalId, now]);
  }

  /** Cuts a stored body to `maxBytes` (characters of it, at most that many bytes for ASCII), recording the cut. */
  async capBody(id: number, maxBytes: number): Promise<boolean> {
    const { changes } = await this.#db.run(
      `update deliveries set body = substr(body, 1, ?), body_truncated = 1 where id = ? and ${bytesOf(this.#db.dialect, 'body')} > ?`,
      [maxBytes, id, maxBytes],
    );
    return changes === 1;
  }

  /** What the stored refused records hold: the bytes of their bodies, headers and errors (see `storedBytes`). */
  async refusedBytes(): Promise<number> {
    const [rejected, params] = deliveryStatusIn(this.#db.dialect, ['rejected'])!;
    const row = await this.#db.get<{ n: number }>(`select coalesce(sum(${storedBytesSql(this.#db.dialect)}), 0) as n from deliveries where ${rejected}`, params);
    return Number(row?.n ?? 0);
  }

  async countByStatus(connector: string): Promise<Partial<Record<DeliveryStatus, number>>> {
    const out: Partial<Record<DeliveryStatus, number>> = {};
    const rows = await this.#db.all<{ status: DeliveryStatus; n: number }>(
      `select status, count(*) as n from deliveries where connector = ? group by status`,
      [connector],
    );
    for (const r of rows) out[r.status] = Number(r.n);
    return out;
  }
}
