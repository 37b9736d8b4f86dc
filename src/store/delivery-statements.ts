/**
 * The statements about one delivery that its neighbours issue side by side
 * (sql.ts `Mergeable`): a batch of webhooks stores its deliveries and their
 * jobs' ids, a claim reads its jobs' deliveries and opens their attempts, a
 * batch of completions records outcomes and closes attempts. One row each on
 * SQLite; on PostgreSQL one statement for the rows of a tick.
 */
import { pgValue } from './postgres/pg-value.ts';
import { BY_IDS, byKey, columns, idColumns, insertedIds } from './mergeable.ts';
import type { Mergeable } from './sql.ts';

/** connector, event_type, dedup_key, event_at, thread_id, chat_id, body, body_truncated, headers, verification, status, error, now. */
export type OriginalInsert = readonly [string, string | null, string | null, string | null, string | null, string | null, string, number, string, string, string, string | null, number];

const DELIVERY_COLUMNS = `connector, event_type, dedup_key, event_at, thread_id, chat_id, body, body_truncated, headers, verification,
  status, error, received_at, updated_at`;
const DEDUP = 'on conflict (connector, event_at, dedup_key) where dedup_key is not null and duplicate_of is null do nothing';

/**
 * A delivery stored as its event's first: its id and, on PostgreSQL, the id its job is to take (`jobs_id_seq`'s
 * next, written on the delivery with it: no update of the row once the job is queued); undefined when the event
 * has its original already.
 */
export interface StoredOriginal {
  id: number;
  /** The id reserved for its job (PostgreSQL); undefined on SQLite, where the job's row gives it. */
  jobId: number | undefined;
}

const RESERVED_JOB_ID = `nextval('jobs_id_seq')`;

export const INSERT_ORIGINAL: Mergeable<OriginalInsert, StoredOriginal | undefined> = {
  name: 'insert_original',
  async one(db, row) {
    const values = '?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?';
    if (db.dialect === 'sqlite') {
      const id = await db.insert(`insert into deliveries (${DELIVERY_COLUMNS}) values (${values}) ${DEDUP}`, [...row, row[12]]);
      return id === undefined ? undefined : { id, jobId: undefined };
    }
    const r = await db.get<{ id: number; job_id: number }>(
      `insert into deliveries (${DELIVERY_COLUMNS}, job_id) values (${values}, ${RESERVED_JOB_ID}) ${DEDUP} returning id, job_id`,
      [...row, row[12]],
    );
    return r && { id: r.id, jobId: r.job_id };
  },
  async many(db, rows) {
    const cols = columns(rows, 13);
    const inserted = await db.all<{ id: number; job_id: number; connector: string; event_at: string | null; dedup_key: string | null }>(
      `insert into deliveries (${DELIVERY_COLUMNS}, job_id)
       select *, ${RESERVED_JOB_ID} from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[],
         ?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::bigint[]) ${DEDUP}
       returning id, job_id, connector, event_at, dedup_key`,
      [...cols, cols[12]],
    );
    inserted.sort((a, b) => a.id - b.id);
    // Rows skipped by the dedup index return nothing. The rows inserted come back in input order; a row is skipped
    // only when an earlier one (stored, or before it here) has its key, so walking both in order pairs them.
    let next = 0;
    return rows.map(([connector, , dedupKey, eventAt]) => {
      const r = inserted[next];
      const same = r !== undefined && r.connector === pgValue(connector) && r.event_at === pgValue(eventAt) && r.dedup_key === pgValue(dedupKey);
      if (!same) return undefined;
      next += 1;
      return { id: r.id, jobId: r.job_id };
    });
  },
};

/** delivery id, job id. */
export const SET_DELIVERY_JOB: Mergeable<readonly [number, number], void> = byKey(
  'set_delivery_job',
  ([id]) => id,
  async (db, [id, jobId]) => {
    await db.run(`update deliveries set job_id = ? where id = ?`, [jobId, id]);
  },
  async (db, rows) => {
    await db.run(`update deliveries d set job_id = v.job_id from unnest(?::bigint[], ?::bigint[]) as v(id, job_id) where ${BY_IDS('d')}`, idColumns(rows, 2));
    return rows.map(() => undefined);
  },
);

/** id, status, error, external id (kept when null), now. */
export type OutcomeUpdate = readonly [number, string, string | null, string | null, number];

export const RECORD_OUTCOME: Mergeable<OutcomeUpdate, void> = byKey(
  'record_outcome',
  ([id]) => id,
  async (db, [id, status, error, externalId, now]) => {
    await db.run(`update deliveries set status = ?, error = ?, external_id = coalesce(?, external_id), updated_at = ? where id = ?`, [status, error, externalId, now, id]);
  },
  async (db, rows) => {
    await db.run(
      `update deliveries d set status = v.status, error = v.error, external_id = coalesce(v.external_id, d.external_id), updated_at = v.now
       from unnest(?::bigint[], ?::text[], ?::text[], ?::text[], ?::bigint[]) as v(id, status, error, external_id, now) where ${BY_IDS('d')}`,
      idColumns(rows, 5),
    );
    return rows.map(() => undefined);
  },
);

/** A delivery's row as stored, by its id; read in a write (a claim's). */
export const DELIVERY_BY_ID: Mergeable<number, Record<string, unknown> | undefined> = {
  name: 'delivery_by_id',
  one: (db, id) => db.get<Record<string, unknown>>(`select * from deliveries where id = ?`, [id]),
  async many(db, ids) {
    const rows = await db.all<Record<string, unknown> & { id: number }>(`select * from deliveries where id = any(?::bigint[])`, [ids]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id));
  },
};

/** delivery, job id, attempt, replay (0/1), started at: the new attempt's id. */
export type AttemptOpening = readonly [number, number | null, number, number, number];

const ATTEMPT_COLUMNS = 'delivery, job_id, attempt, replay, started_at, outcome';

export const OPEN_ATTEMPT: Mergeable<AttemptOpening, number> = {
  name: 'open_attempt',
  async one(db, row) {
    return (await db.insert(`insert into delivery_attempts (${ATTEMPT_COLUMNS}) values (?, ?, ?, ?, ?, 'running')`, row)) as number;
  },
  async many(db, rows) {
    const inserted = await db.all<{ id: number }>(
      `insert into delivery_attempts (${ATTEMPT_COLUMNS})
       select *, 'running' from unnest(?::bigint[], ?::bigint[], ?::int[], ?::int[], ?::bigint[]) returning id`,
      columns(rows, 5),
    );
    return insertedIds(inserted);
  },
};

/** What a delivery's run needs of its row: its id and its body as stored. */
export interface DeliveryToSend {
  id: number;
  body: string;
}

/** The delivery to send and the attempt opened on it, in one statement; undefined when the delivery is gone. */
export interface OpenedAttempt {
  delivery: DeliveryToSend;
  attempt: number;
}

/**
 * A claim's look at a job's delivery: the attempt opened (only while the delivery is stored: retention may have
 * removed it) and what the run sends read, one statement, so that a claim's jobs merge into one and the claim's
 * COMMIT can follow it (pg-group-writer.ts). The read sees the row as before the statement, which does not change
 * it. Only the id and the body: the headers and the rest of the row are the operator's, not the connector's.
 */
export const OPEN_ATTEMPT_READING: Mergeable<AttemptOpening, OpenedAttempt | undefined> = {
  name: 'open_attempt_reading',
  async one(db, row) {
    const live = `where exists (select 1 from deliveries where id = ?)`;
    if (db.dialect === 'sqlite') {
      const opening = db.insert(`insert into delivery_attempts (${ATTEMPT_COLUMNS}) select ?, ?, ?, ?, ?, 'running' ${live}`, [...row, row[0]]);
      const reading = db.get<DeliveryToSend>(`select id, body from deliveries where id = ?`, [row[0]]);
      const [attempt, delivery] = await Promise.all([opening, reading]);
      return delivery && attempt !== undefined ? { delivery, attempt } : undefined;
    }
    const read = await db.get<DeliveryToSend & { attempt_id: number | null }>(
      `with a as (insert into delivery_attempts (${ATTEMPT_COLUMNS}) select ?, ?, ?, ?, ?, 'running' ${live} returning id)
       select d.id, d.body, (select id from a) as attempt_id from deliveries d where d.id = ?`,
      [...row, row[0], row[0]],
    );
    if (read?.attempt_id == null) return undefined;
    return { delivery: { id: read.id, body: read.body }, attempt: read.attempt_id };
  },
  async many(db, rows) {
    // A row per attempt opened (no array to aggregate on the server and parse here), joined to its delivery by the
    // primary key; a delivery claimed twice in one statement (a replay beside its original run) comes back twice.
    const read = await db.all<DeliveryToSend & { attempt_id: number }>(
      `with a as (
         insert into delivery_attempts (${ATTEMPT_COLUMNS})
         select v.*, 'running' from unnest(?::bigint[], ?::bigint[], ?::int[], ?::int[], ?::bigint[]) as v(delivery, job_id, attempt, replay, started_at)
         where exists (select 1 from deliveries d where d.id = v.delivery) returning id, delivery)
       select a.id as attempt_id, d.id, d.body from a join deliveries d on d.id = a.delivery`,
      columns(rows, 5),
    );
    // A delivery's attempts of this statement rise in input order (mergeable.ts `insertedIds`).
    const byId = Map.groupBy(read.sort((x, y) => x.attempt_id - y.attempt_id), (r) => r.id);
    return rows.map(([delivery]) => {
      const r = byId.get(delivery)?.shift();
      return r && { delivery: { id: r.id, body: r.body }, attempt: r.attempt_id };
    });
  },
};

/** attempt id, ended at, outcome, error, external id. */
export type AttemptClosing = readonly [number, number, string, string | null, string | null];

export const CLOSE_ATTEMPT: Mergeable<AttemptClosing, void> = byKey(
  'close_attempt',
  ([id]) => id,
  async (db, [id, endedAt, outcome, error, externalId]) => {
    await db.run(`update delivery_attempts set ended_at = ?, outcome = ?, error = ?, external_id = ? where id = ?`, [endedAt, outcome, error, externalId, id]);
  },
  async (db, rows) => {
    await db.run(
      `update delivery_attempts a set ended_at = v.ended_at, outcome = v.outcome, error = v.error, external_id = v.external_id
       from unnest(?::bigint[], ?::bigint[], ?::text[], ?::text[], ?::text[]) as v(id, ended_at, outcome, error, external_id) where ${BY_IDS('a')}`,
      idColumns(rows, 5),
    );
    return rows.map(() => undefined);
  },
);
