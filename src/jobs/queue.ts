/**
 * The durable job queue on SQLite. `enqueue` is synchronous so it runs inside
 * the caller's transaction (the transactional outbox); claiming is one
 * UPDATE … RETURNING, so two workers never hold the same job; a job whose
 * worker died is claimable again once its lease expires. A failed job is
 * retried with backoff until its deadline (retry-budget.ts).
 */
import type { Statement } from 'better-sqlite3';
import type { Store } from '../store/database.ts';
import type { JobStatus } from '../store/schema.ts';
import { matchingJobs, type JobFilter, type JobRef } from '../store/job-queries.ts';
import { countJobsByStatus } from '../store/status-counts.ts';
import { DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';
import { describeFailure, LeaseLostError, JobNotDeadError, JobNotFoundError } from './errors.ts';
import { DEFAULT_RETRY_BUDGET, isLastTry, nextRunAt } from './retry-budget.ts';

export interface Job<P = unknown> {
  id: number;
  kind: string;
  payload: P;
  status: JobStatus;
  attempts: number;
  maxAttempts: number;
  /** Unix ms after which no new try starts; null for a job queued before deadlines existed. */
  giveUpAt: number | null;
  /** Whether a failure of the current try dead-letters the job (decided when it was read: at the claim for a running job). */
  lastTry: boolean;
  runAt: number;
  lastError: string | null;
}

export interface EnqueueInput {
  kind: string;
  payload: unknown;
  /** The attempt cap; default DEFAULT_RETRY_BUDGET's. */
  maxAttempts?: number;
  /** How long it is retried from now; default DEFAULT_RETRY_BUDGET's (3 days). */
  retryForMs?: number;
  /** Unix ms; default now. */
  runAt?: number;
}

interface JobRow {
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

const COLUMNS = 'id, kind, payload, status, attempts, max_attempts, give_up_at, run_at, last_error';

export type FailOutcome = { status: 'queued'; runAt: number } | { status: 'dead' };

export class JobQueue {
  readonly #store: Store;
  readonly #backoff: BackoffPolicy;
  readonly #now: () => number;
  readonly #sql: Record<
    'insert' | 'claim' | 'complete' | 'requeue' | 'bury' | 'release' | 'postpone' | 'hurry' | 'extend' | 'get' | 'retry' | 'due',
    Statement
  >;

  constructor(store: Store, options: { backoff?: BackoffPolicy; now?: () => number } = {}) {
    this.#store = store;
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.#now = options.now ?? Date.now;
    const db = store.sqlite;
    this.#sql = {
      insert: db.prepare(
        `insert into jobs (kind, payload, max_attempts, retry_for_ms, give_up_at, run_at, created_at, updated_at)
         values (?, ?, ?, ?, ?, ?, ?, ?) returning id`,
      ),
      // Each side takes at most `limit` rows in index order (jobs_due: kind, status, run_at, rowid), so a
      // backlog of thousands of due jobs is not read and sorted whole to claim a few.
      claim: db.prepare(
        `update jobs set status = 'running', attempts = attempts + 1, lease_owner = @owner, lease_until = @until, updated_at = @now
         where id in (
           select id from (
             select * from (select id, run_at from jobs where kind = @kind and status = 'queued' and run_at <= @now order by run_at, id limit @limit)
             union all
             select * from (select id, run_at from jobs where kind = @kind and status = 'running' and lease_until < @now limit @limit))
           order by run_at, id limit @limit)
         returning ${COLUMNS}`,
      ),
      complete: db.prepare(
        `update jobs set status = 'done', lease_owner = null, lease_until = null, updated_at = ?, finished_at = ?
         where id = ? and lease_owner = ? and status = 'running'`,
      ),
      requeue: db.prepare(
        `update jobs set status = 'queued', run_at = ?, last_error = ?, lease_owner = null, lease_until = null, updated_at = ?
         where id = ? and lease_owner = ? and status = 'running'`,
      ),
      bury: db.prepare(
        `update jobs set status = 'dead', last_error = ?, lease_owner = null, lease_until = null, updated_at = ?, finished_at = ?
         where id = ? and lease_owner = ? and status = 'running'`,
      ),
      release: db.prepare(
        `update jobs set status = 'queued', attempts = attempts - 1, lease_owner = null, lease_until = null, updated_at = ?
         where id = ? and lease_owner = ? and status = 'running'`,
      ),
      // The wait is not the job's: its deadline moves on by as long as it is put off.
      postpone: db.prepare(
        `update jobs set status = 'queued', attempts = attempts - 1, run_at = @runAt, last_error = @reason, lease_owner = null, lease_until = null,
           updated_at = @now, give_up_at = give_up_at + max(0, @runAt - @now)
         where id = @id and lease_owner = @owner and status = 'running'`,
      ),
      hurry: db.prepare(`update jobs set run_at = ?, updated_at = ? where id = ? and status = 'queued' and run_at > ?`),
      extend: db.prepare(`update jobs set lease_until = ? where id = ? and lease_owner = ? and status = 'running'`),
      get: db.prepare(`select ${COLUMNS} from jobs where id = ?`),
      // A retry by hand starts a fresh budget: attempts from 0 and a new deadline.
      retry: db.prepare(
        `update jobs set status = 'queued', attempts = 0, run_at = @now, updated_at = @now, finished_at = null,
           give_up_at = case when retry_for_ms is null then null else @now + retry_for_ms end
         where id = @id and status = 'dead'`,
      ),
      due: db.prepare(`select min(run_at) as at from jobs where kind = ? and status = 'queued'`),
    };
  }

  /** Adds a job. Call inside the transaction that stores what the job acts on. */
  enqueue(input: EnqueueInput): number {
    const now = this.#now();
    const retryForMs = input.retryForMs ?? DEFAULT_RETRY_BUDGET.retryForMs;
    const row = this.#sql.insert.get(
      input.kind,
      JSON.stringify(input.payload),
      input.maxAttempts ?? DEFAULT_RETRY_BUDGET.maxAttempts,
      retryForMs,
      now + retryForMs,
      input.runAt ?? now,
      now,
      now,
    ) as { id: number };
    return row.id;
  }

  /** Takes up to `limit` due jobs of `kind` (or with an expired lease) for `owner`; each knows whether it is on its last try. */
  claim(kind: string, owner: string, leaseMs: number, limit: number): Job[] {
    const now = this.#now();
    const rows = this.#sql.claim.all({ owner, until: now + leaseMs, now, kind, limit }) as JobRow[];
    return rows.map((r) => this.#toJob(r, now));
  }

  complete(id: number, owner: string): boolean {
    const now = this.#now();
    return this.#sql.complete.run(now, now, id, owner).changes === 1;
  }

  /**
   * Runs `work` (what the job achieved, synchronous SQL) and marks the job
   * done in one grouped write: the outcome and the completion commit together,
   * with other callers' writes, and there is no window in which the outcome
   * is stored but the job would run again. Resolves after the commit.
   */
  completeWith(id: number, owner: string, work: () => void = () => {}): Promise<true> {
    return this.#store.write(() => {
      work();
      // Checked in the same write: a run whose lease moved on records nothing (its savepoint rolls back).
      if (!this.complete(id, owner)) throw new LeaseLostError(`job ${id} is no longer held by ${owner}`);
      return true;
    });
  }

  /** Runs queue statements (fail, postpone, …) as one grouped write; resolves after its commit. */
  grouped<T>(fn: () => T): Promise<T> {
    return this.#store.write(fn);
  }

  /** Records a failure (LeaseLostError when `owner` no longer holds the job): queued again after backoff, or dead when permanent or on its last try (past its deadline or cap). */
  fail(job: Job, owner: string, err: unknown): FailOutcome {
    const info = describeFailure(err);
    const now = this.#now();
    if (info.permanent || job.lastTry) {
      held(this.#sql.bury.run(info.message, now, now, job.id, owner).changes, job.id, owner);
      return { status: 'dead' };
    }
    const runAt = nextRunAt(job, now, this.#backoff, info.retryAfterMs);
    held(this.#sql.requeue.run(runAt, info.message, now, job.id, owner).changes, job.id, owner);
    return { status: 'queued', runAt };
  }

  /** Gives a claimed job back untouched (graceful stop); the attempt does not count. */
  release(id: number, owner: string): boolean {
    return this.#sql.release.run(this.#now(), id, owner).changes === 1;
  }

  /**
   * Gives a claimed job back to run at `runAt` (a paused connector): neither
   * the try nor the wait counts against its budget (its deadline moves on by
   * the wait), `reason` shows why it waits.
   */
  postpone(id: number, owner: string, runAt: number, reason: string): void {
    held(this.#sql.postpone.run({ runAt, reason: reason.slice(0, 2000), now: this.#now(), id, owner }).changes, id, owner);
  }

  /** Makes queued jobs that wait for a later time due now (a pause ended early); returns how many. */
  hurry(ids: readonly number[]): number {
    const now = this.#now();
    return this.#store.transaction(() => ids.reduce((n, id) => n + this.#sql.hurry.run(now, now, id, now).changes, 0));
  }

  /** Keeps a long-running job's lease alive. */
  extendLease(id: number, owner: string, leaseMs: number): boolean {
    return this.#sql.extend.run(this.#now() + leaseMs, id, owner).changes === 1;
  }

  get(id: number): Job | undefined {
    const row = this.#sql.get.get(id) as JobRow | undefined;
    return row && this.#toJob(row, this.#now());
  }

  /** Runs a dead job again from a fresh attempt count. */
  retryDead(id: number): Job {
    const now = this.#now();
    const changed = this.#store.transaction(() => this.#sql.retry.run({ now, id }).changes);
    if (changed === 0) {
      const job = this.get(id);
      if (!job) throw new JobNotFoundError(`no job ${id}`);
      throw new JobNotDeadError(`job ${id} is ${job.status}, not dead`);
    }
    return this.get(id) as Job;
  }

  /**
   * Every dead job the filter matches, queued again as `retryDead` does, in one
   * transaction, oldest first; with `dryRun` only listed.
   */
  retryDeadWhere(filter: Omit<JobFilter, 'status' | 'before' | 'limit'>, options: { dryRun?: boolean } = {}): JobRef[] {
    const dead = { ...filter, status: ['dead' as const] };
    if (options.dryRun) return matchingJobs(this.#store, dead);
    const now = this.#now();
    return this.#store.transaction(() => {
      const jobs = matchingJobs(this.#store, dead);
      for (const job of jobs) this.#sql.retry.run({ now, id: job.id });
      return jobs;
    });
  }

  /** The earliest run_at among queued jobs of `kind`, for sleeping until then. */
  nextDueAt(kind: string): number | null {
    return (this.#sql.due.get(kind) as { at: number | null }).at;
  }

  countByStatus(): Record<JobStatus, number> {
    return countJobsByStatus(this.#store);
  }

  #toJob(r: JobRow, now: number): Job {
    const job = {
      id: r.id,
      kind: r.kind,
      payload: JSON.parse(r.payload) as unknown,
      status: r.status,
      attempts: r.attempts,
      maxAttempts: r.max_attempts,
      giveUpAt: r.give_up_at,
      runAt: r.run_at,
      lastError: r.last_error,
    };
    return { ...job, lastTry: isLastTry(job, now, this.#backoff) };
  }
}

/** Throws LeaseLostError when a statement on a held job changed nothing: the job is not `owner`'s any more. */
function held(changes: number, id: number, owner: string): void {
  if (changes !== 1) throw new LeaseLostError(`job ${id} is no longer held by ${owner}`);
}
