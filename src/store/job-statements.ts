/**
 * The job table's statements that the writes of a batch issue side by side
 * (sql.ts `Mergeable`): a webhook's job queued, a job's completion. One row
 * each on SQLite; on PostgreSQL one statement for the rows of a tick.
 */
import { BY_IDS, byKey, columns, idColumns, insertedIds } from './mergeable.ts';
import { besideId, type Mergeable } from './sql.ts';

/** kind, payload, max_attempts, retry_for_ms, give_up_at, run_at, created_at, updated_at, order_key, lane. */
export type JobInsert = readonly [string, string, number, number, number, number, number, number, string | null, string | null];

const JOB_COLUMNS = 'kind, payload, max_attempts, retry_for_ms, give_up_at, run_at, created_at, updated_at, order_key, lane';

export const INSERT_JOB: Mergeable<JobInsert, number> = {
  name: 'insert_job',
  async one(db, row) {
    return (await db.insert(`insert into jobs (${JOB_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, row)) as number;
  },
  async many(db, rows) {
    const inserted = await db.all<{ id: number }>(
      `insert into jobs (${JOB_COLUMNS})
       select * from unnest(?::text[], ?::text[], ?::int[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::text[], ?::text[])
       returning id`,
      columns(rows, 10),
    );
    return insertedIds(inserted);
  },
};

/** A job whose id was reserved (`nextval('jobs_id_seq')`, PostgreSQL: with its delivery), then its row as above. */
export type JobInsertWithId = readonly [number, ...JobInsert];

export const INSERT_JOB_WITH_ID: Mergeable<JobInsertWithId, number> = {
  name: 'insert_job_with_id',
  async one(db, row) {
    await db.run(`insert into jobs (id, ${JOB_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, row);
    return row[0];
  },
  async many(db, rows) {
    await db.run(
      `insert into jobs (id, ${JOB_COLUMNS})
       select * from unnest(?::bigint[], ?::text[], ?::text[], ?::int[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::text[], ?::text[])`,
      columns(rows, 11),
    );
    return rows.map(([id]) => id);
  },
};

/** id, owner, lease end, now: true when the owner took the job (it runs now). */
export type JobTake = readonly [number, string, number, number];

/** A claim's or a take's change to the jobs it holds; its parameters: owner, lease end, now. */
export const HOLD = `update jobs set status = 'running', attempts = attempts + 1, lease_owner = ?, lease_until = ?, updated_at = ?`;

/** What stands before job `alias` on PostgreSQL: an earlier job of its order key, running or due by `now`. */
export const pgOrderFree = (alias: string, now: string) =>
  `${alias}.order_key is null or not exists (select 1 from jobs e where e.order_key = ${alias}.order_key and e.id < ${alias}.id
     and e.finished_at is null and (e.status = 'running' or (e.status = 'queued' and e.run_at <= ${now})))`;

/**
 * Takes the queued job `id` for `owner` if it is due and nothing stands before it: the claim of one job just
 * enqueued in the same write, which then starts as soon as that write commits. False when it is not to be taken now.
 * What stands before it: on PostgreSQL an earlier job of its order key, due and queued or running (on another
 * replica maybe); on SQLite, whose one gateway keeps a thread's order with its per-thread locks, an earlier due job
 * of its kind that no claim took yet (another process queued it: a replay from the CLI), so that the claims take
 * them in due order (jobs_due; sqlite/order-index.ts); a kind taken on enqueue has no lanes. No RETURNING on
 * SQLite: the caller wrote the row, and SQLite would pay a temporary b-tree for it (sql.ts `insert`). Merged, the
 * takes of a batch's jobs of one thread see each other queued: only the first is taken, as one by one.
 */
export const TAKE_JOB: Mergeable<JobTake, boolean> = byKey(
  'take_job',
  ([id]) => id,
  async (db, [id, owner, until, now]) => {
    const postgres = db.dialect === 'postgres';
    const before = postgres
      ? pgOrderFree('jobs', '?')
      : `not exists (select 1 from jobs e where e.kind = jobs.kind and e.lane is null and e.status = 'queued' and e.run_at <= ? and e.id < jobs.id)`;
    // By the primary key alone (besideId): a plan cached on an empty table read it through jobs_due, every due job.
    const take = `${HOLD} where id = ? and ${besideId(db.dialect, 'status')} = 'queued' and run_at <= ? and (${before})`;
    const { changes } = await db.run(take, [owner, until, now, id, now, now]);
    return changes === 1;
  },
  async (db, rows) => {
    const taken = await db.all<{ id: number }>(
      `update jobs set status = 'running', attempts = attempts + 1, lease_owner = v.owner, lease_until = v.until, updated_at = v.now
       from unnest(?::bigint[], ?::text[], ?::bigint[], ?::bigint[]) as v(id, owner, until, now)
       where ${BY_IDS('jobs')} and jobs.status || '' = 'queued' and jobs.run_at <= v.now and (${pgOrderFree('jobs', 'v.now')})
       returning jobs.id`,
      idColumns(rows, 4),
    );
    const ids = new Set(taken.map((r) => r.id));
    return rows.map(([id]) => ids.has(id));
  },
);

/**
 * id, lease owner, now, forget (1: the row is deleted, 0: kept as done): true when the owner still held the job (it is
 * done now, or gone).
 */
export type JobCompletion = readonly [number, string, number, number];

/** SQLSTATE of `threadgate_held` (migrations/postgres/0012): a completion found a job's lease gone. */
const NOT_HELD = 'TGL01';

/** The running job of `owner` the statement finishes, by the alias of its row (`j`) and of its values (`v`). */
const HELD_BY_OWNER = `j.lease_owner = v.owner and j.status || '' = 'running'`;
/** A job marked done at `now` (a placeholder, or the values' column): its lease let go. */
const done = (now: string) => `status = 'done', lease_owner = null, lease_until = null, updated_at = ${now}, finished_at = ${now}`;

/**
 * A job of a kind that forgets its done jobs (job-kind-options.ts `forgetDone`) is deleted; any other is kept as
 * done until retention takes it. On PostgreSQL a job no longer held fails the statement (`threadgate_held`), so that
 * the write's COMMIT, sent with it (pg-group-writer.ts), rolls back: merged, every caller runs again alone (a shared
 * failure), where the one whose lease is gone is answered false, its transaction aborted.
 */
export const COMPLETE_JOB: Mergeable<JobCompletion, boolean> = byKey(
  'complete_job',
  ([id]) => id,
  async (db, [id, owner, now, forget]) => {
    const held = `where id = ? and lease_owner = ? and ${besideId(db.dialect, 'status')} = 'running'`;
    const finish = forget === 1 ? `delete from jobs ${held}` : `update jobs set ${done('?')} ${held}`;
    const params = forget === 1 ? [id, owner] : [now, now, id, owner];
    if (db.dialect === 'sqlite') return (await db.run(finish, params)).changes === 1;
    const checked = db.get(`with done as (${finish} returning id) select threadgate_held((select count(*) from done), 1)`, params);
    return checked.then(
      () => true,
      (err: unknown) => {
        if ((err as { code?: unknown }).code === NOT_HELD) return false;
        throw err;
      },
    );
  },
  async (db, rows) => {
    // One statement whatever the mix: the forgotten jobs deleted, the others marked done, every one of them held.
    const cols = columns(rows, 4);
    await db.get(
      `with v as (select * from unnest(?::bigint[], ?::text[], ?::bigint[], ?::int[]) as v(id, owner, now, forget)),
       gone as (
         delete from jobs j using v
         where ${BY_IDS('j')} and v.forget = 1 and ${HELD_BY_OWNER}
         returning j.id),
       done as (
         update jobs j set ${done('v.now')} from v
         where ${BY_IDS('j')} and v.forget = 0 and ${HELD_BY_OWNER}
         returning j.id)
       select threadgate_held((select count(*) from gone) + (select count(*) from done), ?)`,
      [...cols, cols[0], cols[0], rows.length],
    );
    return rows.map(() => true);
  },
);
