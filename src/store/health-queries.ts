/**
 * What the alert watch (src/alerts/) and the store's gauges of `/metrics`
 * (http/store-gauges.ts) read: the jobs dead-lettered since a mark, the dead
 * letters waiting per connector, whether a connector got something through
 * after a dead letter, and how long the oldest due job of each kind has
 * waited. Each reads a live or partial index: dead jobs by `jobs_status`
 * (status, kind), deliveries by `deliveries_status` (status, received_at; on
 * PostgreSQL dead ones by `deliveries_flagged`, delivery-status-sql.ts),
 * inbound messages by `inbound_status` (status, rowid), due jobs by `jobs_due`.
 */
import { deliveryStatusIn } from './delivery-status-sql.ts';
import type { Sql } from './sql.ts';

/** Where the last read of dead jobs stopped: their `finished_at`, then id. */
export interface DeadMark {
  at: number;
  id: number;
}

export interface DeadJobRow {
  id: number;
  kind: string;
  /** JSON text. */
  payload: string;
  lastError: string | null;
  finishedAt: number;
}

/** Jobs of `kinds` dead-lettered after `mark`, oldest first, at most `limit`. */
export async function deadJobsSince(db: Sql, mark: DeadMark, kinds: readonly string[], limit: number): Promise<DeadJobRow[]> {
  const rows = await db.all<{ id: number; kind: string; payload: string; last_error: string | null; finished_at: number }>(
    `select id, kind, payload, last_error, finished_at from jobs
       where status = 'dead' and kind in (${kinds.map(() => '?').join(', ')}) and (finished_at > ? or (finished_at = ? and id > ?))
       order by finished_at, id limit ?`,
    [...kinds, mark.at, mark.at, mark.id, limit],
  );
  return rows.map((r) => ({ id: Number(r.id), kind: r.kind, payload: r.payload, lastError: r.last_error, finishedAt: Number(r.finished_at) }));
}

/** The newest dead-lettered job's mark (where a watch that never ran starts: what died before it is not alerted). */
export async function latestDeadMark(db: Sql): Promise<DeadMark> {
  const row = await db.get<{ id: number; finished_at: number }>(`select id, finished_at from jobs where status = 'dead' order by finished_at desc, id desc limit 1`);
  return row ? { at: Number(row.finished_at), id: Number(row.id) } : { at: 0, id: 0 };
}

/**
 * Whether a delivery of `connector` got through (delivered or skipped) after `at`: its deliveries flow again. Only
 * deliveries received since `receivedSince` are looked at (an index range; a delivery is not retried for longer).
 */
export async function deliveredAfter(db: Sql, connector: string, at: number, receivedSince: number): Promise<boolean> {
  const row = await db.get(
    `select 1 as ok from deliveries where status in ('delivered', 'skipped') and received_at > ? and updated_at > ? and connector = ? limit 1`,
    [receivedSince, at, connector],
  );
  return row !== undefined;
}

/** Whether an inbound message of `connector` with an id above `id` reached the platform after `at`: its posts flow again. */
export async function postedAfter(db: Sql, connector: string, id: number, at: number): Promise<boolean> {
  const row = await db.get(`select 1 as ok from inbound_messages where status = 'posted' and id > ? and posted_at > ? and connector = ? limit 1`, [id, at, connector]);
  return row !== undefined;
}

/** The records an operator retries or replays by hand once dead (`deliveries`, `inbound retry`). */
export const DEAD_LETTER_RECORDS = { delivery: 'deliveries', inbound: 'inbound_messages' } as const;

/** Dead-lettered rows by connector, of each record (a connector with none: no row). */
export async function deadLettersByConnector(db: Sql): Promise<{ record: keyof typeof DEAD_LETTER_RECORDS; connector: string; n: number }[]> {
  const out: { record: keyof typeof DEAD_LETTER_RECORDS; connector: string; n: number }[] = [];
  for (const [record, table] of Object.entries(DEAD_LETTER_RECORDS) as [keyof typeof DEAD_LETTER_RECORDS, string][]) {
    const [dead, params] = record === 'delivery' ? deliveryStatusIn(db.dialect, ['dead'])! : [`status = 'dead'`, []];
    const rows = await db.all<{ connector: string; n: number | string }>(`select connector, count(*) as n from ${table} where ${dead} group by connector`, params);
    for (const r of rows) out.push({ record, connector: r.connector, n: Number(r.n) });
  }
  return out;
}

/**
 * The due time (Unix ms) of the queued job of each kind that has been due longest, for the kinds with one due at
 * `now`. A job waiting for its next try is not due: a backlog is work the runner has not taken up although it could.
 */
export async function oldestDueByKind(db: Sql, now: number): Promise<{ kind: string; runAt: number }[]> {
  const rows = await db.all<{ kind: string; due: number | string }>(`select kind, min(run_at) as due from jobs where status = 'queued' and run_at <= ? group by kind`, [now]);
  return rows.map((r) => ({ kind: r.kind, runAt: Number(r.due) }));
}

/** The dead inbound messages a platform job left (what its alert names): ids, who sent the first, the thread's key. */
export async function deadInboundOfJob(db: Sql, jobId: number): Promise<{ ids: number[]; sender: string | null; threadKey: string | null }> {
  const rows = await db.all<{ id: number; sender: string | null; thread_key: string | null }>(
    `select m.id, coalesce(m.sender_name, m.sender_id) as sender, t.thread_key from inbound_messages m left join threads t on t.id = m.thread
       where m.job_id = ? and m.status = 'dead' order by m.id`,
    [jobId],
  );
  return { ids: rows.map((r) => Number(r.id)), sender: rows[0]?.sender ?? null, threadKey: rows[0]?.thread_key ?? null };
}
