/**
 * One run of a claimed job: its handler with a context (abort signal, lease
 * heartbeat, `complete`, `onFail`, `recorded`), then its outcome recorded in
 * one grouped write — done, queued again after backoff, postponed, dead, or
 * released on stop — written again while the store is away.
 */
import type { Logger } from 'pino';
import { lazyChild } from '../log/lazy-child.ts';
import type { Repos } from '../store/repos.ts';
import { describeFailure, LeaseLostError, postponedUntil } from './errors.ts';
import type { Job, JobQueue, TxWork } from './queue.ts';
import { storeWasUnavailable, whileStoreUnavailable } from './store-retry.ts';

export interface JobContext<P> {
  job: Job<P>;
  /** Aborted when the runner stops before the handler finished. */
  signal: AbortSignal;
  logger: Logger;
  /**
   * Records what the job achieved (`work`, in the write's `tx`) and marks the job
   * done in the same grouped write. Optional: a handler that returns without
   * calling it is completed by the runner afterwards. Once called, the job is
   * done whatever the handler does next (the runner waits for that commit;
   * should `work` throw, nothing of it is stored and the job fails as usual).
   * On PostgreSQL completions of one group run at once (a batch, store.ts
   * `WriteOptions`): `work` touches rows of this job's own (its delivery, its attempt).
   * It sends all its statements before its first await and fails only through
   * them: the write's COMMIT goes out with them (`Repos.sent`).
   */
  complete(work?: TxWork): void;
  /**
   * SQL to commit in the same grouped write as this run's failure (the job
   * queued again, postponed or dead-lettered) when the handler then throws:
   * e.g. the delivery's failed/dead record, so the record and the job never
   * disagree, not even for a moment.
   */
  onFail(work: TxWork): void;
  /**
   * Settles once this run's outcome (done, queued again, dead, postponed or
   * released) is committed — or could not be. A per-thread lock held until
   * then keeps the next run of the thread from reading the items this run
   * left to its failure record.
   */
  recorded: Promise<void>;
  /** What the kind's `onClaim` returned in the write that claimed this run (undefined without one). */
  claimed: unknown;
}

export type JobHandler<P = unknown> = (payload: P, ctx: JobContext<P>) => Promise<void>;

export type JobOutcome = 'done' | 'queued' | 'dead' | 'released' | 'postponed';

/** What a run needs of its runner and kind. */
export interface JobRun {
  job: Job;
  /** The lease owner of the claim (or take) that holds it. */
  owner: string;
  /** What the kind's `onClaim` returned. */
  claimed: unknown;
  queue: JobQueue;
  logger: Logger;
  handler: JobHandler<unknown>;
  leaseMs: number;
  /** Its row is deleted once done, not kept (job-kind-options.ts `forgetDone`). */
  forgetDone: boolean;
  /** The kind's running jobs: the run is in it from its start until its outcome is recorded. */
  inFlight: Map<number, { controller: AbortController; owner: string }>;
  /** Told when the run ended: its kind, outcome, duration and the job itself (its payload names what it worked for). */
  onFinished?: (kind: string, outcome: JobOutcome, seconds: number, job: Job) => void;
  /** Told when the run left `inFlight`: whether it ended done. */
  onEnded: (done: boolean) => void;
}

export function runJob(run: JobRun): void {
  const { job, owner, claimed, queue, handler, leaseMs, forgetDone: forget, inFlight, onFinished } = run;
  const controller = new AbortController();
  inFlight.set(job.id, { controller, owner });
  const logger = lazyChild(run.logger, { job_id: job.id, kind: job.kind, attempt: job.attempts });
  const heartbeat = setInterval(
    () => void queue.extendLease(job.id, owner, leaseMs).catch((err: unknown) => logger.warn({ err }, 'renewing the job lease failed')),
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  heartbeat.unref();
  const started = Date.now();
  const seconds = () => (Date.now() - started) / 1000;
  // The outcome is written again while the database is away, not left to the lease (which would run the job twice).
  const durably = <T>(what: string, write: () => Promise<T>) => whileStoreUnavailable(write, { signal: controller.signal, logger, what });
  let completion: Promise<true> | undefined;
  const complete = (work?: TxWork) => {
    completion ??= durably('job done', () => queue.completeWith(job.id, owner, work, forget));
  };
  let markRecorded!: () => void;
  const recorded = new Promise<void>((resolve) => (markRecorded = resolve));
  const failWork: TxWork[] = [];
  const onFail = (work: TxWork) => void failWork.push(work);
  const withFailWork = <T>(record: (tx: Repos) => Promise<T>) => async (tx: Repos) => {
    for (const work of failWork) await work(tx);
    return record(tx);
  };
  const outcome = async (): Promise<JobOutcome> => {
    let failure: unknown;
    try {
      await handler(job.payload, { job, signal: controller.signal, logger, complete, onFail, recorded, claimed });
    } catch (err) {
      failure = err ?? new Error('the handler failed without an error');
    }
    if (completion) {
      try {
        await completion;
        if (failure !== undefined) logger.error({ err: failure }, 'the job failed after it was completed; it stays done');
        return 'done';
      } catch (err) {
        if (err instanceof LeaseLostError) throw err;
        failure = err; // its work threw (rolled back alone): the job fails as usual
      }
    }
    if (controller.signal.aborted) return 'released'; // another run will do it
    if (failure === undefined) {
      await durably('job done', () => queue.completeWith(job.id, owner, undefined, forget));
      return 'done';
    }
    // The store away is no failure of the job: due again at once, no try used, still ahead of its thread's next.
    const until = postponedUntil(failure) ?? (storeWasUnavailable(failure) ? Date.now() : undefined);
    if (until !== undefined) {
      await durably('job postponed', () => queue.write(withFailWork((tx) => queue.postpone(tx, job.id, owner, until, describeFailure(failure).message))));
      logger.debug({ run_at: new Date(until).toISOString(), reason: (failure as Error).message }, 'job postponed');
      return 'postponed';
    }
    const failed = await durably('job failed', () => queue.write(withFailWork((tx) => queue.fail(tx, job, owner, failure))));
    const level = failed.status === 'dead' ? 'error' : 'warn';
    logger[level]({ err: failure, outcome: failed, duration_ms: Date.now() - started }, `job failed (${failed.status})`);
    return failed.status;
  };
  let done = false;
  outcome()
    .then(
      (ended) => {
        done = ended === 'done';
        if (done) logger.debug({ duration_ms: Date.now() - started }, 'job done');
        onFinished?.(job.kind, ended, seconds(), job);
      },
      (err: unknown) => {
        // A lost lease records nothing of this run (another run has the job); any other failed commit leaves
        // the job to its lease: it runs again once the lease ran out.
        if (err instanceof LeaseLostError) {
          logger.warn({ err }, 'the job\'s lease moved on; nothing of this run is recorded');
          return onFinished?.(job.kind, 'released', seconds(), job);
        }
        logger.error({ err }, 'recording the job outcome failed');
      },
    )
    .finally(() => {
      markRecorded();
      clearInterval(heartbeat);
      // Not a later run of the same job (taken again after this run's lease ran out): that one is still going.
      if (inFlight.get(job.id)?.owner === owner) inFlight.delete(job.id);
      run.onEnded(done);
    });
}
