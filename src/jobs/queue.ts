/**
 * The durable job queue's logic over the store's jobs repository. `enqueue`
 * takes the caller's write (`tx`), so a job is stored in the same atomic write
 * as what it acts on (the transactional outbox); claiming is one grouped
 * UPDATE … RETURNING, so two workers never hold the same job; a job whose
 * worker died is claimable again once its lease expires. A failed job is
 * retried with backoff until its deadline (retry-budget.ts).
 */
import type { Store } from '../store/database.ts';
import type { JobRow } from '../store/jobs-repo.ts';
import type { Repos } from '../store/repos.ts';
import type { JobStatus } from '../store/schema.ts';
import { matchingJobs, type JobFilter, type JobRef } from '../store/job-queries.ts';
import { countJobsByStatus } from '../store/status-counts.ts';
import { DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';
import { describeFailure, LeaseLostError, JobNotDeadError, JobNotFoundError } from './errors.ts';
import { DEFAULT_RETRY_BUDGET, isLastTry, nextRunAt } from './retry-budget.ts';
import type { EnqueueInput, Enqueued, EnqueueListener, FailOutcome, Job, TxWork } from './job-types.ts';

export type { EnqueueInput, Enqueued, EnqueueListener, FailOutcome, Job, TxWork };

/**
 * The batch of a job's completion (store.ts `WriteOptions`): it and its work (a delivery's outcome and attempt) touch
 * that job's rows alone, the completion checked against the job's lease in one statement.
 */
const COMPLETION_BATCH = { batch: 'completion' } as const;

export class JobQueue {
  readonly #store: Store;
  readonly #backoff: BackoffPolicy;
  readonly #now: () => number;
  #enqueued: EnqueueListener | undefined;
  /** Jobs this process starts itself (taken in the write that enqueued them, or claimed with a free slot after it), until it settled. */
  readonly #startsHere = new Set<number>();
  /**
   * Whether a claim that returns fewer jobs than asked left no due job behind: true on SQLite (one gateway, claims
   * in due order); on PostgreSQL a claim passes over a job while an earlier one of its order key runs.
   */
  readonly claimTakesAllDue: boolean;

  constructor(store: Store, options: { backoff?: BackoffPolicy; now?: () => number } = {}) {
    this.#store = store;
    this.claimTakesAllDue = store.backend === 'sqlite';
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.#now = options.now ?? Date.now;
  }

  /** Tells `listener` (the runner) of every job enqueued through this queue, inside the enqueuing write. */
  onEnqueued(listener: EnqueueListener): void {
    this.#enqueued = listener;
  }

  /**
   * Adds a job in the caller's write `tx` (the one that stores what the job acts on). The runner is told in the same
   * write: it may take the job there, to start it as soon as the write commits, and otherwise looks once it did.
   * `alongside` is the caller's own use of the new job's id in `tx` (its id on the row it acts on), issued with the
   * runner's take: on PostgreSQL the two statements travel together (pg-store.ts, pipeline). `last`: the caller's
   * write issues nothing after this; once the job's statements are sent the write says so (`Repos.sent`), and on
   * PostgreSQL its COMMIT travels with them.
   */
  async enqueue(tx: Repos, input: EnqueueInput, options: { alongside?: (jobId: number) => Promise<unknown>; last?: boolean } = {}): Promise<number> {
    const now = this.#now();
    const retryForMs = input.retryForMs ?? DEFAULT_RETRY_BUDGET.retryForMs;
    const runAt = input.runAt ?? now;
    const row = {
      kind: input.kind,
      payload: JSON.stringify(input.payload),
      maxAttempts: input.maxAttempts ?? DEFAULT_RETRY_BUDGET.maxAttempts,
      retryForMs,
      giveUpAt: now + retryForMs,
      runAt,
      orderKey: input.orderKey ?? null,
      lane: input.lane ?? null,
      ...(input.id === undefined ? {} : { id: input.id }),
    };
    const inserted = tx.jobs.insert(row, now);
    // A reserved id (PostgreSQL) is known before the row is stored: the runner's take goes out with the insert.
    const id = input.id ?? (await inserted);
    const job = { id, kind: row.kind, runAt, lane: row.lane, payload: row.payload, maxAttempts: row.maxAttempts, giveUpAt: row.giveUpAt };
    // Other processes (replicas on PostgreSQL) hear of it once it is stored, unless this one starts it.
    tx.afterCommit((committed) => {
      if (!this.#startsHere.delete(id) && committed) this.#store.wakeups?.queued(row.kind, row.lane);
    });
    const issued = Promise.all([inserted, this.#enqueued?.(tx, job), options.alongside?.(id)]);
    if (options.last) tx.sent();
    await issued;
    return id;
  }

  /**
   * Claims `job`, just enqueued in `tx`, for `owner` in that same write, when it is due and nothing queued
   * elsewhere stands before it (jobs-repo.ts `take`: its order key's jobs on PostgreSQL, its kind's on SQLite);
   * undefined otherwise. It must not start before `tx` committed.
   */
  async take(tx: Repos, job: Enqueued, owner: string, leaseMs: number): Promise<Job | undefined> {
    const now = this.#now();
    if (!(await tx.jobs.take(job.id, owner, now + leaseMs, now))) return undefined;
    this.#startsHere.add(job.id);
    // The row as the take left it: written in this write, never run before.
    const row: JobRow = {
      id: job.id, kind: job.kind, payload: job.payload, status: 'running', attempts: 1, max_attempts: job.maxAttempts,
      give_up_at: job.giveUpAt, run_at: job.runAt, last_error: null,
    };
    return this.#toJob(row, now);
  }

  /** In the write that enqueued job `id`: this process's runner claims it after the commit; nobody else is woken. */
  startsHere(id: number): void {
    this.#startsHere.add(id);
  }

  /** Takes up to `limit` due jobs of `kind` (or with an expired lease) for `owner`, in one grouped write; each knows whether it is on its last try. */
  claim(kind: string, owner: string, leaseMs: number, limit: number): Promise<Job[]> {
    return this.#store.write((tx) => this.claimIn(tx, kind, owner, leaseMs, limit));
  }

  /**
   * `claim` inside the caller's write `tx`; its jobs must not start before `tx` committed. Without `expired`, running
   * jobs whose lease ran out are not looked for (the runner looks now and then, not at every claim). With `lane`,
   * only the jobs of that lane.
   */
  async claimIn(tx: Repos, kind: string, owner: string, leaseMs: number, limit: number, expired = true, lane: string | null = null): Promise<Job[]> {
    const now = this.#now();
    const rows = await tx.jobs.claim(kind, owner, now + leaseMs, now, limit, expired, lane);
    // Due order (the order a thread's jobs were queued in): PostgreSQL's UPDATE … RETURNING has no order of its own.
    rows.sort((a, b) => a.run_at - b.run_at || a.id - b.id);
    return rows.map((r) => this.#toJob(r, now));
  }

  /**
   * Runs `work` (what the job achieved) and marks the job done in one grouped
   * write: the outcome and the completion commit together, with other
   * callers' writes, and there is no window in which the outcome is stored
   * but the job would run again. Resolves after the commit. `forget`: the
   * job's row is deleted instead (its kind's `forgetDone`).
   */
  completeWith(id: number, owner: string, work?: TxWork, forget = false): Promise<true> {
    return this.#store.write(async (tx) => {
      // Together: on PostgreSQL the work's statements, the completion and the COMMIT travel at once (pg-store.ts).
      // Checked in the same write: a run whose lease moved on records nothing (the write fails and is rolled back alone;
      // on PostgreSQL the completion's statement fails, so the COMMIT sent with it rolls back).
      const sending = Promise.all([work?.(tx), tx.jobs.complete(id, owner, this.#now(), forget)]);
      tx.sent();
      const [, completed] = await sending;
      held(completed, id, owner);
      return true as const;
    }, COMPLETION_BATCH);
  }

  /** Runs `fn` as one grouped write of the store (a job's failure with its records). */
  write<T>(fn: (tx: Repos) => Promise<T>): Promise<T> {
    return this.#store.write(fn);
  }

  /** Records a failure in `tx` (LeaseLostError when `owner` no longer holds the job): queued again after backoff, or dead when permanent or on its last try (past its deadline or cap). */
  async fail(tx: Repos, job: Job, owner: string, err: unknown): Promise<FailOutcome> {
    const info = describeFailure(err);
    const now = this.#now();
    if (info.permanent || job.lastTry) {
      held(await tx.jobs.bury(job.id, owner, info.message, now), job.id, owner);
      return { status: 'dead' };
    }
    const runAt = nextRunAt(job, now, this.#backoff, info.retryAfterMs);
    held(await tx.jobs.requeue(job.id, owner, runAt, info.message, now), job.id, owner);
    return { status: 'queued', runAt };
  }

  /** Gives a claimed job back untouched (graceful stop); the attempt does not count. */
  async release(id: number, owner: string): Promise<boolean> {
    const released = await this.#store.write((tx) => tx.jobs.release(id, owner, this.#now()));
    if (released) this.#store.wakeups?.queued();
    return released;
  }

  /** Gives a claimed job back to run at `runAt` (a paused connector), in `tx`: neither the try nor the wait counts against its budget (its deadline moves on by the wait); `reason` shows why it waits. */
  async postpone(tx: Repos, id: number, owner: string, runAt: number, reason: string): Promise<void> {
    held(await tx.jobs.postpone(id, owner, runAt, reason.slice(0, 2000), this.#now()), id, owner);
  }

  /** Makes queued jobs that wait for a later time due now (a pause ended early); returns how many. */
  async hurry(ids: readonly number[]): Promise<number> {
    const now = this.#now();
    const n = await this.#store.write(async (tx) => {
      let n = 0;
      for (const id of ids) if (await tx.jobs.hurry(id, now)) n += 1;
      return n;
    });
    if (n > 0) this.#store.wakeups?.queued();
    return n;
  }

  /** Keeps a long-running job's lease alive. */
  extendLease(id: number, owner: string, leaseMs: number): Promise<boolean> {
    return this.#store.write((tx) => tx.jobs.extendLease(id, owner, this.#now() + leaseMs));
  }

  async get(id: number): Promise<Job | undefined> {
    const row = await this.#store.read.jobs.get(id);
    return row && this.#toJob(row, this.#now());
  }

  /** Runs a dead job again from a fresh attempt count. */
  async retryDead(id: number): Promise<Job> {
    const changed = await this.#store.write((tx) => tx.jobs.retryDead(id, this.#now()));
    if (!changed) {
      const job = await this.get(id);
      if (!job) throw new JobNotFoundError(`no job ${id}`);
      throw new JobNotDeadError(`job ${id} is ${job.status}, not dead`);
    }
    const job = (await this.get(id)) as Job;
    this.#store.wakeups?.queued(job.kind);
    return job;
  }

  /** Every dead job the filter matches, queued again as `retryDead` does, in one write, oldest first; with `dryRun` only listed. */
  async retryDeadWhere(filter: Omit<JobFilter, 'status' | 'before' | 'limit'>, options: { dryRun?: boolean } = {}): Promise<JobRef[]> {
    const dead = { ...filter, status: ['dead' as const] };
    if (options.dryRun) return matchingJobs(this.#store.read.sql, dead);
    const now = this.#now();
    const jobs = await this.#store.write(async (tx) => {
      const jobs = await matchingJobs(tx.sql, dead);
      for (const job of jobs) await tx.jobs.retryDead(job.id, now);
      return jobs;
    });
    for (const kind of new Set(jobs.map((j) => j.kind))) this.#store.wakeups?.queued(kind);
    return jobs;
  }

  /** The earliest run_at among queued jobs of `kind` (of its `lane`, with one), for sleeping until then. */
  nextDueAt(kind: string, lane: string | null = null): Promise<number | null> {
    return this.#store.read.jobs.nextDueAt(kind, lane);
  }

  /** The lanes that jobs of `kind` wait or run in. */
  lanes(kind: string): Promise<string[]> {
    return this.#store.read.jobs.lanes(kind);
  }

  countByStatus(): Promise<Record<JobStatus, number>> {
    return countJobsByStatus(this.#store.read.sql);
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
function held(changed: boolean, id: number, owner: string): void {
  if (!changed) throw new LeaseLostError(`job ${id} is no longer held by ${owner}`);
}
