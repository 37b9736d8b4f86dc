/**
 * The job table's statements (the queue's logic is src/jobs/queue.ts).
 * Claiming is one UPDATE … RETURNING over a bounded pick of due rows, so two
 * workers never hold the same job; every statement on a held job names its
 * lease owner and reports whether it still held it.
 */
import { COMPLETE_JOB, HOLD, INSERT_JOB, INSERT_JOB_WITH_ID, pgOrderFree, TAKE_JOB } from './job-statements.ts';
import { besideId, type Sql } from './sql.ts';
import { ORDERED_UNFINISHED_JOB } from './sqlite/order-index.ts';
import type { JobStatus } from './statuses.ts';

export interface JobRow {
  id: number;
  kind: string;
  payload: string;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  give_up_at: number | null;
  run_at: number;
  last_error: string | null;
}

export interface NewJobRow {
  kind: string;
  payload: string;
  /** Jobs of one key run one at a time, in id order (a thread's); null: no order. */
  orderKey: string | null;
  maxAttempts: number;
  retryForMs: number;
  giveUpAt: number;
  runAt: number;
  /** The lane a claim takes it in (jobs/lanes.ts); null or absent: the kind has none. */
  lane?: string | null;
  /** An id reserved for it (PostgreSQL: by the delivery it acts on, delivery-statements.ts); absent: the next. */
  id?: number;
}

const COLUMNS = 'id, kind, payload, status, attempts, max_attempts, give_up_at, run_at, last_error';


export class JobsRepo {
  readonly #db: Sql;
  /** The status as a statement that finds a job by its id compares it (sql.ts `besideId`). */
  readonly #status: string;

  constructor(db: Sql) {
    this.#db = db;
    this.#status = besideId(db.dialect, 'status');
  }

  /** Merged with the inserts of the write's neighbours (job-statements.ts). */
  insert(j: NewJobRow, now: number): Promise<number> {
    const row = [j.kind, j.payload, j.maxAttempts, j.retryForMs, j.giveUpAt, j.runAt, now, now, j.orderKey, j.lane ?? null] as const;
    return j.id === undefined ? this.#db.merged(INSERT_JOB, row) : this.#db.merged(INSERT_JOB_WITH_ID, [j.id, ...row]);
  }

  /**
   * Takes up to `limit` due jobs of `kind` in lane `lane` (null: the jobs without one, a kind without lanes), or
   * running ones whose lease expired. Each side picks at most `limit` rows in index order (jobs_due: kind, lane,
   * run_at, rowid of the queued jobs; jobs_status for the running ones), so a backlog of thousands, in its lane or
   * in others, is not read and sorted whole.
   * On PostgreSQL (replicas) a job with an order key is passed over while an earlier job of its key (any kind) is
   * running or due, so a thread's jobs run one at a time, in order, whichever replica claims them; the picks lock
   * their rows and skip rows another replica's claim holds (`for update skip locked`), while the order check reads
   * without locking and so still sees an earlier job that claim holds. SQLite has one gateway, whose per-thread
   * locks already keep the order: its claims skip the check (it costs a re-claim per job of a busy thread, 40 % of
   * the drain rate when measured). Without `expired` only due queued jobs are looked at: the expired side reads every
   * running job of the kind (the lease is not in the index), and under load the claim was the costliest statement.
   */
  claim(kind: string, owner: string, until: number, now: number, limit: number, expired = true, lane: string | null = null): Promise<JobRow[]> {
    const postgres = this.#db.dialect === 'postgres';
    const lock = postgres ? ' for update of c skip locked' : '';
    const inOrder = postgres ? ` and (${pgOrderFree('c', '?')})` : '';
    const orderNow = postgres ? [now] : [];
    const ofLane = ` and ${laneIs('c.lane', lane)}`;
    const kindLane = kindAndLane(kind, lane);
    // In jobs_due's order, so that the scan stops at the limit. SQLite's index ends with the rowid (the id): equal
    // times come in id order, which its runner's thread order rests on. PostgreSQL's orders equal keys by where the
    // row lies: `order by run_at, id` there sorted every due job of the kind before taking the first (37,000-102,000
    // pages a claim behind a backlog; docs/benchmarks.md at 65810b0, "PostgreSQL: plans made on an empty table"); its threads
    // keep their order by the check above, not by the claim's. The order names the lane: PostgreSQL knows a column
    // compared with `=` to be constant, and one tested `is null` not, and would sort the lane's due jobs by run_at.
    const due = `select c.id, c.run_at from jobs c where c.kind = ?${ofLane} and c.status = 'queued' and c.run_at <= ?${inOrder}
             order by c.lane, c.run_at${postgres ? '' : ', c.id'} limit ?${lock}`;
    const dueParams = [...kindLane, now, ...orderNow, limit];
    const picked = expired
      ? `select id from (
           select * from (${due}) due
           union all
           select * from (select c.id, c.run_at from jobs c where c.kind = ?${ofLane} and c.status = 'running' and c.lease_until < ?${inOrder}
             limit ?${lock}) expired) picked
         order by run_at, id limit ?`
      : `select id from (${due}) due`;
    const pickedParams = expired ? [...dueParams, ...kindLane, now, ...orderNow, limit, limit] : dueParams;
    return this.#db.all<JobRow>(`${HOLD} where id in (${picked}) returning ${COLUMNS}`, [owner, until, now, ...pickedParams]);
  }

  /** Takes the queued job `id`, just enqueued in this write, for `owner` if nothing stands before it (job-statements.ts). */
  take(id: number, owner: string, until: number, now: number): Promise<boolean> {
    return this.#db.merged(TAKE_JOB, [id, owner, until, now]);
  }

  /** Merged with the completions of the write's neighbours (job-statements.ts); `forget`: the row is deleted, not kept as done. */
  complete(id: number, owner: string, now: number, forget = false): Promise<boolean> {
    return this.#db.merged(COMPLETE_JOB, [id, owner, now, forget ? 1 : 0]);
  }

  async requeue(id: number, owner: string, runAt: number, error: string, now: number): Promise<boolean> {
    return this.#held(
      `update jobs set status = 'queued', run_at = ?, last_error = ?, lease_owner = null, lease_until = null, updated_at = ?
       where id = ? and lease_owner = ? and ${this.#status} = 'running'`,
      [runAt, error, now, id, owner],
    );
  }

  async bury(id: number, owner: string, error: string, now: number): Promise<boolean> {
    return this.#held(
      `update jobs set status = 'dead', last_error = ?, lease_owner = null, lease_until = null, updated_at = ?, finished_at = ?
       where id = ? and lease_owner = ? and ${this.#status} = 'running'`,
      [error, now, now, id, owner],
    );
  }

  /** Gives a held job back untouched: the attempt does not count. */
  async release(id: number, owner: string, now: number): Promise<boolean> {
    return this.#held(
      `update jobs set status = 'queued', attempts = attempts - 1, lease_owner = null, lease_until = null, updated_at = ?
       where id = ? and lease_owner = ? and ${this.#status} = 'running'`,
      [now, id, owner],
    );
  }

  /** The wait is not the job's: its deadline moves on by as long as it is put off. */
  async postpone(id: number, owner: string, runAt: number, reason: string, now: number): Promise<boolean> {
    const wait = Math.max(0, runAt - now);
    return this.#held(
      `update jobs set status = 'queued', attempts = attempts - 1, run_at = ?, last_error = ?, lease_owner = null, lease_until = null,
         updated_at = ?, give_up_at = give_up_at + ?
       where id = ? and lease_owner = ? and ${this.#status} = 'running'`,
      [runAt, reason, now, wait, id, owner],
    );
  }

  /** Makes a queued job that waits for later due now; true when it did. */
  async hurry(id: number, now: number): Promise<boolean> {
    return this.#held(`update jobs set run_at = ?, updated_at = ? where id = ? and ${this.#status} = 'queued' and run_at > ?`, [now, now, id, now]);
  }

  async extendLease(id: number, owner: string, until: number): Promise<boolean> {
    return this.#held(`update jobs set lease_until = ? where id = ? and lease_owner = ? and ${this.#status} = 'running'`, [until, id, owner]);
  }

  get(id: number): Promise<JobRow | undefined> {
    return this.#db.get<JobRow>(`select ${COLUMNS} from jobs where id = ?`, [id]);
  }

  /** A dead job queued again with a fresh budget: attempts from 0 and a new deadline. */
  async retryDead(id: number, now: number): Promise<boolean> {
    return this.#held(
      `update jobs set status = 'queued', attempts = 0, run_at = ?, updated_at = ?, finished_at = null,
         give_up_at = case when retry_for_ms is null then null else ? + retry_for_ms end
       where id = ? and ${this.#status} = 'dead'`,
      [now, now, now, id],
    );
  }

  /**
   * A dead job an operator's replay or retry replaced with `byJob`: done, its last error naming the successor, so
   * it is no longer offered for retry (which would send the same thing twice) nor counted as dead.
   */
  async supersede(id: number, byJob: number, now: number): Promise<boolean> {
    return this.#held(`update jobs set status = 'done', last_error = ?, updated_at = ? where id = ? and ${this.#status} = 'dead'`, [`replaced by job ${byJob}`, now, id]);
  }

  /**
   * In a write: a job of `kind` and order key `orderKey` that is queued and due by `now` (the first in jobs_order,
   * which holds live jobs only: a few rows), if any, which will run only after this write commits. Not for the kind
   * SQLite's order index leaves out (sqlite/order-index.ts): there it finds none. On PostgreSQL the row is
   * locked, so another replica's claim (`skip locked`) passes it over until then, and a claim that took it first
   * makes this read wait and find it running. SQLite's claims are writes, after this one.
   */
  async queuedOfOrder(orderKey: string, kind: string, now: number): Promise<number | undefined> {
    const postgres = this.#db.dialect === 'postgres';
    const lock = postgres ? ' for update' : '';
    const row = await this.#db.get<{ id: number }>(
      // SQLite would otherwise take jobs_status (two equal columns against one) and read every queued job of the kind.
      // `+run_at` keeps jobs_due out too. No `order by id desc`: SQLite then reads the key's whole range (7 µs against 1.6).
      `select id from jobs${postgres ? '' : ' indexed by jobs_order'} where order_key = ? and ${postgres ? 'finished_at is null' : ORDERED_UNFINISHED_JOB}
         and status = 'queued' and kind = ? and +run_at <= ? limit 1${lock}`,
      [orderKey, kind, now],
    );
    return row?.id;
  }

  /** The earliest run_at among queued jobs of `kind` in lane `lane` (null: the jobs without one). */
  async nextDueAt(kind: string, lane: string | null = null): Promise<number | null> {
    // The first entry of the lane in jobs_due, not `min(run_at)`: on PostgreSQL a plan cached while the table was
    // nearly empty aggregates every queued job of the kind (docs/benchmarks.md at 65810b0, "PostgreSQL: plans made on
    // an empty table"). In the index's order, lane first, as the claim's (PostgreSQL sorted the lane's jobs for `is null`).
    const row = await this.#db.get<{ at: number }>(
      `select run_at as at from jobs where kind = ? and ${laneIs('lane', lane)} and status = 'queued' order by lane, run_at limit 1`,
      kindAndLane(kind, lane),
    );
    return row === undefined ? null : Number(row.at);
  }

  /**
   * The lanes jobs of `kind` wait in (queued) or run in. The queued side hops through jobs_due from one lane to the
   * next, one index look a lane however long its queue (SQLite sorts the null lane first, PostgreSQL last: the hop
   * starts past it); the running side reads the kind's running jobs (jobs_status), at most what the runners hold.
   */
  async lanes(kind: string): Promise<string[]> {
    const rows = await this.#db.all<{ lane: string }>(
      `with recursive queued(lane) as (
         select (select lane from jobs where kind = ? and status = 'queued' and lane > '' order by lane limit 1)
         union all
         select (select j.lane from jobs j where j.kind = ? and j.status = 'queued' and j.lane > queued.lane order by j.lane limit 1)
         from queued where queued.lane is not null)
       select lane from queued where lane is not null
       union
       select lane from jobs where status = 'running' and kind = ? and lane is not null`,
      [kind, kind, kind],
    );
    return rows.map((r) => r.lane);
  }

  async #held(sql: string, params: unknown[]): Promise<boolean> {
    return (await this.#db.run(sql, params)).changes === 1;
  }
}

/** The condition on a job's lane in `column`: null names the jobs without one (a kind without lanes). */
const laneIs = (column: string, lane: string | null): string => (lane === null ? `${column} is null` : `${column} = ?`);

/** The parameters of `kind = ? and <laneIs>`. */
const kindAndLane = (kind: string, lane: string | null): string[] => (lane === null ? [kind] : [kind, lane]);
