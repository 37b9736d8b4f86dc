/**
 * Runs jobs: one loop per kind with its own concurrency, woken by `notify()`
 * after an enqueue commits, by a finished job, or by a timer until the next due
 * job. Leases are renewed while a handler runs. `stop()` claims nothing more,
 * waits for in-flight jobs up to a deadline, then aborts and releases the rest
 * so another process (or the next start) takes them. A handler that throws
 * an error with `postponeUntil` gives its job back for later without using a try.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
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
}

export type JobHandler<P = unknown> = (payload: P, ctx: JobContext<P>) => Promise<void>;

export interface JobKindOptions<P> {
  handler: JobHandler<P>;
  concurrency?: number;
  leaseMs?: number;
}

interface KindState {
  kind: string;
  handler: JobHandler<unknown>;
  concurrency: number;
  leaseMs: number;
  /** Running jobs: how to abort each, and the lease owner of the claim that took it. */
  inFlight: Map<number, { controller: AbortController; owner: string }>;
  wake: () => void;
  loop: Promise<void> | null;
}

export type JobOutcome = 'done' | 'queued' | 'dead' | 'released' | 'postponed';

export interface RunnerOptions {
  logger: Logger;
  /** Told when each run of a job ended (for metrics): its kind, outcome and duration. */
  onJobFinished?: (kind: string, outcome: JobOutcome, seconds: number) => void;
  /** Longest sleep between looks at the table (jobs enqueued by another process). */
  pollMs?: number;
  owner?: string;
}

export class JobRunner {
  /** This runner's name; each claim writes `<owner>.<n>` as its jobs' lease owner (a fencing token per claim). */
  readonly owner: string;
  #claims = 0;
  readonly #queue: JobQueue;
  readonly #logger: Logger;
  readonly #pollMs: number;
  readonly #onFinished: RunnerOptions['onJobFinished'];
  readonly #kinds = new Map<string, KindState>();
  #running = false;

  constructor(queue: JobQueue, options: RunnerOptions) {
    this.#queue = queue;
    this.#logger = options.logger;
    this.#pollMs = options.pollMs ?? 1_000;
    this.#onFinished = options.onJobFinished;
    this.owner = options.owner ?? `${process.pid}-${randomUUID().slice(0, 8)}`;
  }

  register<P>(kind: string, options: JobKindOptions<P>): void {
    if (this.#kinds.has(kind)) throw new Error(`job kind ${kind} is registered twice`);
    this.#kinds.set(kind, {
      kind,
      handler: options.handler as JobHandler<unknown>,
      concurrency: options.concurrency ?? 4,
      leaseMs: options.leaseMs ?? 60_000,
      inFlight: new Map(),
      wake: () => {},
      loop: null,
    });
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    for (const state of this.#kinds.values()) state.loop = this.#loop(state);
  }

  /** Look for due jobs now (call after the transaction that enqueued them committed). */
  notify(kind?: string): void {
    if (kind === undefined) for (const s of this.#kinds.values()) s.wake();
    else this.#kinds.get(kind)?.wake();
  }

  inFlightCount(): number {
    let n = 0;
    for (const s of this.#kinds.values()) n += s.inFlight.size;
    return n;
  }

  async stop(timeoutMs = 10_000): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    this.notify();
    const deadline = Date.now() + timeoutMs;
    while (this.inFlightCount() > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    for (const state of this.#kinds.values()) {
      for (const [id, { controller, owner }] of state.inFlight) {
        controller.abort(new Error('the job runner is stopping'));
        if (await this.#queue.release(id, owner).catch(() => false)) this.#logger.warn({ job_id: id, kind: state.kind }, 'job released on stop');
      }
      await state.loop;
    }
  }

  async #loop(state: KindState): Promise<void> {
    while (this.#running) {
      const capacity = state.concurrency - state.inFlight.size;
      let claimed: Job[] = [];
      // A lease owner of this claim alone: a run of an earlier claim of the same job (its lease expired, this runner
      // took it again) can record nothing, as a run on another replica could not.
      const owner = `${this.owner}.${++this.#claims}`;
      if (capacity > 0) {
        try {
          // One statement claims the batch, grouped with other writes into their commit.
          claimed = await this.#queue.claim(state.kind, owner, state.leaseMs, capacity);
        } catch (err) {
          this.#logger.error({ err, kind: state.kind }, 'claiming jobs failed');
        }
        if (!this.#running) {
          // Stopped while the claim committed: give them back untouched.
          await Promise.all(claimed.map((job) => this.#queue.release(job.id, owner).catch(() => false)));
          break;
        }
        for (const job of claimed) this.#run(state, job, owner);
      }
      // Whatever was due is claimed (or capacity is full): sleep until an enqueue, a finished job or the next due time.
      await this.#sleep(state);
    }
  }

  async #sleep(state: KindState): Promise<void> {
    let woken = false;
    let timer: NodeJS.Timeout | undefined;
    let resolve!: () => void;
    const slept = new Promise<void>((r) => (resolve = r));
    const done = () => {
      if (woken) return;
      woken = true;
      clearTimeout(timer);
      state.wake = () => {};
      resolve();
    };
    // Awake to a notify() from here on, also while the next due time is read.
    state.wake = done;
    let delay = this.#pollMs;
    if (state.inFlight.size < state.concurrency) {
      const due = await this.#queue.nextDueAt(state.kind).catch(() => null);
      if (due !== null) delay = Math.max(0, Math.min(delay, due - Date.now()));
    }
    if (!woken) timer = setTimeout(done, delay);
    return slept;
  }

  #run(state: KindState, job: Job, owner: string): void {
    const controller = new AbortController();
    state.inFlight.set(job.id, { controller, owner });
    const logger = this.#logger.child({ job_id: job.id, kind: job.kind, attempt: job.attempts });
    const heartbeat = setInterval(
      () => void this.#queue.extendLease(job.id, owner, state.leaseMs).catch((err: unknown) => logger.warn({ err }, 'renewing the job lease failed')),
      Math.max(50, Math.floor(state.leaseMs / 3)),
    );
    heartbeat.unref();
    const started = Date.now();
    const seconds = () => (Date.now() - started) / 1000;
    // The outcome is written again while the database is away, not left to the lease (which would run the job twice).
    const durably = <T>(what: string, write: () => Promise<T>) => whileStoreUnavailable(write, { signal: controller.signal, logger, what });
    let completion: Promise<true> | undefined;
    const complete = (work?: TxWork) => {
      completion ??= durably('job done', () => this.#queue.completeWith(job.id, owner, work));
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
        await state.handler(job.payload, { job, signal: controller.signal, logger, complete, onFail, recorded });
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
        await durably('job done', () => this.#queue.completeWith(job.id, owner));
        return 'done';
      }
      // The store away is no failure of the job: due again at once, no try used, still ahead of its thread's next.
      const until = postponedUntil(failure) ?? (storeWasUnavailable(failure) ? Date.now() : undefined);
      if (until !== undefined) {
        await durably('job postponed', () => this.#queue.write(withFailWork((tx) => this.#queue.postpone(tx, job.id, owner, until, describeFailure(failure).message))));
        logger.debug({ run_at: new Date(until).toISOString(), reason: (failure as Error).message }, 'job postponed');
        return 'postponed';
      }
      const failed = await durably('job failed', () => this.#queue.write(withFailWork((tx) => this.#queue.fail(tx, job, owner, failure))));
      const level = failed.status === 'dead' ? 'error' : 'warn';
      logger[level]({ err: failure, outcome: failed, duration_ms: Date.now() - started }, `job failed (${failed.status})`);
      return failed.status;
    };
    outcome()
      .then(
        (ended) => {
          if (ended === 'done') logger.debug({ duration_ms: Date.now() - started }, 'job done');
          this.#onFinished?.(job.kind, ended, seconds());
        },
        (err: unknown) => {
          // A lost lease records nothing of this run (another run has the job); any other failed commit leaves
          // the job to its lease: it runs again once the lease ran out.
          if (err instanceof LeaseLostError) {
            logger.warn({ err }, 'the job\'s lease moved on; nothing of this run is recorded');
            return this.#onFinished?.(job.kind, 'released', seconds());
          }
          logger.error({ err }, 'recording the job outcome failed');
        },
      )
      .finally(() => {
        markRecorded();
        clearInterval(heartbeat);
        // Not a later run of the same job (taken again after this run's lease ran out): that one is still going.
        if (state.inFlight.get(job.id)?.owner === owner) state.inFlight.delete(job.id);
        state.wake();
      });
  }
}
