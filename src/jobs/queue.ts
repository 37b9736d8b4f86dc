/**
 * The durable job queue on SQLite. `enqueue` is synchronous so it runs inside
 * the caller's transaction (the transactional outbox); claiming is one
 * UPDATE … RETURNING, so two workers never hold the same job; a job whose
 * worker died is claimable again once its lease expires.
 */
import type { Statement } from 'better-sqlite3';
import type { Store } from '../store/database.ts';
import type { JobStatus } from '../store/schema.ts';
import { countJobsByStatus } from '../store/status-counts.ts';
import { backoffDelayMs, DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';
import { describeFailure, JobNotDeadError, JobNotFoundError } from './errors.ts';

export const DEFAULT_MAX_ATTEMPTS = 8;

export interface Job<P = unknown> {
  id: number;
  kind: string;
  payload: P;
  status: JobStatus;
  attempts: number;
  maxAttempts: number;
  runAt: number;
  lastError: string | null;
}

export interface EnqueueInput {
  kind: string;
  payload: unknown;
  maxAttempts?: number;
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
  run_at: number;
  last_error: string | null;
}

const toJob = (r: JobRow): Job => ({
  id: r.id,
  kind: r.kind,
  payload: JSON.parse(r.payload) as unknown,
  status: r.status,
  attempts: r.attempts,
  maxAttempts: r.max_attempts,
  runAt: r.run_at,
  lastError: r.last_error,
});

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
        `insert into jobs (kind, payload, max_attempts, run_at, created_at, updated_at)
         values (?, ?, ?, ?, ?, ?) returning id`,
      ),
      claim: db.prepare(
        `update jobs set status = 'running', attempts = attempts + 1, lease_owner = ?, lease_until = ?, updated_at = ?
         where id in (
           select id from (
             select id, run_at from jobs where kind = ? and status = 'queued' and run_at <= ?
             union all
             select id, run_at from jobs where kind = ? and status = 'running' and lease_until < ?)
           order by run_at, id limit ?)
         returning id, kind, payload, status, attempts, max_attempts, run_at, last_error`,
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
      postpone: db.prepare(
        `update jobs set status = 'queued', attempts = attempts - 1, run_at = ?, last_error = ?, lease_owner = null, lease_until = null, updated_at = ?
         where id = ? and lease_owner = ? and status = 'running'`,
      ),
      hurry: db.prepare(`update jobs set run_at = ?, updated_at = ? where id = ? and status = 'queued' and run_at > ?`),
      extend: db.prepare(`update jobs set lease_until = ? where id = ? and lease_owner = ? and status = 'running'`),
      get: db.prepare(
        `select id, kind, payload, status, attempts, max_attempts, run_at, last_error from jobs where id = ?`,
      ),
      retry: db.prepare(
        `update jobs set status = 'queued', attempts = 0, run_at = ?, updated_at = ?, finished_at = null
         where id = ? and status = 'dead'`,
      ),
      due: db.prepare(`select min(run_at) as at from jobs where kind = ? and status = 'queued'`),
    };
  }

  /** Adds a job. Call inside the transaction that stores what the job acts on. */
  enqueue(input: EnqueueInput): number {
    const now = this.#now();
    const row = this.#sql.insert.get(
      input.kind,
      JSON.stringify(input.payload),
      input.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      input.runAt ?? now,
      now,
      now,
    ) as { id: number };
    return row.id;
  }

  /** Takes up to `limit` due jobs of `kind` (or with an expired lease) for `owner`. */
  claim(kind: string, owner: string, leaseMs: number, limit: number): Job[] {
    const now = this.#now();
    const rows = this.#sql.claim.all(owner, now + leaseMs, now, kind, now, kind, now, limit) as JobRow[];
    return rows.map(toJob);
  }

  complete(id: number, owner: string): boolean {
    const now = this.#now();
    return this.#sql.complete.run(now, now, id, owner).changes === 1;
  }

  /**
   * Runs `work` and marks the job done in one transaction, so what the job
   * achieved and its completion commit together (one commit instead of two,
   * and no window in which the outcome is stored but the job would run again).
   */
  completeWith(id: number, owner: string, work: () => void): boolean {
    return this.#store.transaction(() => {
      work();
      const now = this.#now();
      return this.#sql.complete.run(now, now, id, owner).changes === 1;
    });
  }

  /** Records a failure: queued again after backoff, or dead when permanent or out of attempts. */
  fail(job: Job, owner: string, err: unknown): FailOutcome {
    const info = describeFailure(err);
    const now = this.#now();
    if (info.permanent || job.attempts >= job.maxAttempts) {
      this.#sql.bury.run(info.message, now, now, job.id, owner);
      return { status: 'dead' };
    }
    const runAt = now + backoffDelayMs(job.attempts, this.#backoff, info.retryAfterMs);
    this.#sql.requeue.run(runAt, info.message, now, job.id, owner);
    return { status: 'queued', runAt };
  }

  /** Gives a claimed job back untouched (graceful stop); the attempt does not count. */
  release(id: number, owner: string): boolean {
    return this.#sql.release.run(this.#now(), id, owner).changes === 1;
  }

  /**
   * Gives a claimed job back to run at `runAt` (a paused connector): the try
   * does not count, `reason` shows why it waits.
   */
  postpone(id: number, owner: string, runAt: number, reason: string): boolean {
    return this.#sql.postpone.run(runAt, reason.slice(0, 2000), this.#now(), id, owner).changes === 1;
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
    return row && toJob(row);
  }

  /** Runs a dead job again from a fresh attempt count. */
  retryDead(id: number): Job {
    const now = this.#now();
    const changed = this.#store.transaction(() => this.#sql.retry.run(now, now, id).changes);
    if (changed === 0) {
      const job = this.get(id);
      if (!job) throw new JobNotFoundError(`no job ${id}`);
      throw new JobNotDeadError(`job ${id} is ${job.status}, not dead`);
    }
    return this.get(id) as Job;
  }

  /** The earliest run_at among queued jobs of `kind`, for sleeping until then. */
  nextDueAt(kind: string): number | null {
    return (this.#sql.due.get(kind) as { at: number | null }).at;
  }

  countByStatus(): Record<JobStatus, number> {
    return countJobsByStatus(this.#store);
  }
}
