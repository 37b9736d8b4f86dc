/**
 * Runs jobs: one loop per kind with its own concurrency. A job enqueued while
 * its kind has a free slot is taken in the enqueuing write itself
 * (`takeOnEnqueue`) and starts the moment that write commits: no claim of its
 * own, no wake-up. Otherwise the loop claims due jobs in batches, woken when
 * an enqueue it could not take committed, when a job finished while more were
 * waiting, by `notify()`, or by a timer until the next due job. Every claimed
 * or taken job starts from its write's commit listener, in the order the
 * writes of a group ran, so jobs of one thread start in the order queued.
 * Leases are renewed while a handler runs. `stop()` claims nothing more,
 * waits for in-flight jobs up to a deadline, then aborts and releases the rest
 * so another process (or the next start) takes them. A handler that throws
 * an error with `postponeUntil` gives its job back for later without using a try.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Repos } from '../store/repos.ts';
import { runJob, type JobHandler, type JobOutcome, type JobRun } from './job-run.ts';
import type { Enqueued, Job, JobQueue } from './queue.ts';

/** How often, at most, a kind's claims look for jobs whose lease ran out (or a quarter of its lease, if shorter). */
const EXPIRED_LOOK_MS = 1_000;

export interface JobKindOptions<P> {
  handler: JobHandler<P>;
  concurrency?: number;
  leaseMs?: number;
  /**
   * Take a job of this kind in the write that enqueues it when a slot is free (and none of its order key stands
   * before it), so it starts as soon as that write commits. Not for kinds whose enqueuers look for a queued job to
   * join (a thread's platform posts): a job taken at once is no longer queued to be joined.
   */
  takeOnEnqueue?: boolean;
  /**
   * Runs in the write that claims or takes a job of this kind, for each job, before it starts (e.g. its attempt
   * opened in the same commit as its claim); the result reaches the handler as `ctx.claimed`. The calls for the jobs
   * of one claim run at once, their statements interleaved. If one throws, the claim fails with it: it must not throw
   * for one job's sake (a row gone is an undefined result).
   */
  onClaim?: (tx: Repos, job: Job<P>) => Promise<unknown>;
}

interface KindState {
  kind: string;
  handler: JobHandler<unknown>;
  concurrency: number;
  leaseMs: number;
  takeOnEnqueue: boolean;
  onClaim: ((tx: Repos, job: Job) => Promise<unknown>) | undefined;
  /** Running jobs: how to abort each, and the lease owner of the claim that took it. */
  inFlight: JobRun['inFlight'];
  /** Slots held for claims and takes whose write has not committed yet. */
  reserved: number;
  /** Due jobs may wait that no claim has seen: the last claim was full, or an enqueue was not taken since. */
  backlog: boolean;
  /** When a claim last looked for running jobs whose lease ran out (ms). */
  expiredLookedAt: number;
  wake: () => void;
  loop: Promise<void> | null;
}

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
    queue.onEnqueued((tx, job) => this.#enqueued(tx, job));
  }

  register<P>(kind: string, options: JobKindOptions<P>): void {
    if (this.#kinds.has(kind)) throw new Error(`job kind ${kind} is registered twice`);
    this.#kinds.set(kind, {
      kind,
      handler: options.handler as JobHandler<unknown>,
      concurrency: options.concurrency ?? 4,
      leaseMs: options.leaseMs ?? 60_000,
      takeOnEnqueue: options.takeOnEnqueue === true,
      onClaim: options.onClaim as KindState['onClaim'],
      inFlight: new Map(),
      reserved: 0,
      backlog: true,
      expiredLookedAt: 0,
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

  /** Jobs running, and claimed or taken in a write not committed yet. */
  inFlightCount(): number {
    let n = 0;
    for (const s of this.#kinds.values()) n += s.inFlight.size + s.reserved;
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
      try {
        // One statement claims the batch, grouped with other writes into their commit.
        if (this.#free(state) > 0) await this.#queue.write((tx) => this.#claim(tx, state));
      } catch (err) {
        this.#logger.error({ err, kind: state.kind }, 'claiming jobs failed');
      }
      // Stopped while the claim ran (its jobs are given back by #start): no sleep, which stop()'s wake-up missed.
      if (!this.#running) break;
      // Whatever was due is claimed (or capacity is full): sleep until an enqueue, a finished job or the next due time.
      await this.#sleep(state);
    }
  }

  /** Claims what the free slots take, in `tx`; the jobs start when it commits. */
  async #claim(tx: Repos, state: KindState): Promise<void> {
    const capacity = this.#free(state);
    if (capacity <= 0) return;
    const owner = this.#nextOwner();
    let claimed: Job[] = [];
    const notes = new Map<number, unknown>();
    const slots = this.#hold(tx, state, capacity, (committed) => {
      if (!committed) return;
      // A short claim took every due job (SQLite); on PostgreSQL it may have passed over jobs whose thread runs
      // (on another replica, maybe), which a finished job can free: there, every end of a job looks again.
      state.backlog = claimed.length === capacity || !this.#queue.claimTakesAllDue;
      this.#start(state, claimed, owner, notes);
    });
    // Leases that ran out (a process gone, a handler stuck) are looked for now and then, not by every claim: that
    // side reads every running job of the kind (docs/benchmarks.md, "Claims that look for lost leases less often").
    const now = Date.now();
    const expired = now - state.expiredLookedAt >= Math.min(EXPIRED_LOOK_MS, state.leaseMs / 4);
    if (expired) state.expiredLookedAt = now;
    claimed = await this.#queue.claimIn(tx, state.kind, owner, state.leaseMs, capacity, expired);
    slots.keep(claimed.length); // the slots it did not fill are free for takes in the same group
    // All at once: on PostgreSQL their statements travel together (pg-store.ts, pipeline), in the order issued.
    const onClaim = state.onClaim;
    if (!onClaim) return;
    const claimNotes = await Promise.all(claimed.map((job) => onClaim(tx, job)));
    claimed.forEach((job, i) => notes.set(job.id, claimNotes[i]));
  }

  /** The enqueuing write's turn (JobQueue.onEnqueued): the job is taken there when it may be, else looked for after the commit. */
  async #enqueued(tx: Repos, job: Enqueued): Promise<void> {
    const state = this.#kinds.get(job.kind);
    if (!state || !this.#running) return;
    const missed = () => {
      state.backlog = true;
      state.wake();
    };
    // With jobs waiting for a claim, it goes first, in due order (SQLite; PostgreSQL's take checks the order itself).
    const waiting = state.backlog && this.#queue.claimTakesAllDue;
    if (!state.takeOnEnqueue || waiting || this.#free(state) <= 0) {
      tx.afterCommit((committed) => committed && missed());
      return;
    }
    const owner = this.#nextOwner();
    let taken: Job | undefined;
    const notes = new Map<number, unknown>();
    this.#hold(tx, state, 1, (committed) => {
      if (!committed) return;
      if (taken) this.#start(state, [taken], owner, notes);
      else missed();
    });
    taken = await this.#queue.take(tx, job, owner, state.leaseMs);
    if (taken && state.onClaim) notes.set(taken.id, await state.onClaim(tx, taken));
  }

  /**
   * Holds `slots` of `state` until `tx`'s fate is known, then tells `then` (registered before any statement runs);
   * `keep(n)` gives back all but `n` of them at once.
   */
  #hold(tx: Repos, state: KindState, slots: number, then: (committed: boolean) => void): { keep(n: number): void } {
    let held = slots;
    state.reserved += held;
    tx.afterCommit((committed) => {
      state.reserved -= held;
      held = 0;
      then(committed);
    });
    return {
      keep: (n) => {
        state.reserved -= held - n;
        held = n;
      },
    };
  }

  #free(state: KindState): number {
    return state.concurrency - state.inFlight.size - state.reserved;
  }

  /** A lease owner of one claim alone: a run of an earlier claim of the same job (its lease expired, this runner took it again) can record nothing, as a run on another replica could not. */
  #nextOwner(): string {
    return `${this.owner}.${++this.#claims}`;
  }

  /** Runs jobs whose claim committed; after a stop, gives them back untouched. */
  #start(state: KindState, jobs: readonly Job[], owner: string, notes: ReadonlyMap<number, unknown>): void {
    for (const job of jobs) {
      if (this.#running) this.#run(state, job, owner, notes.get(job.id));
      else void this.#queue.release(job.id, owner).catch((err: unknown) => this.#logger.warn({ err, job_id: job.id }, 'giving a job back on stop failed'));
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

  #run(state: KindState, job: Job, owner: string, claimed: unknown): void {
    runJob({
      job,
      owner,
      claimed,
      queue: this.#queue,
      logger: this.#logger,
      handler: state.handler,
      leaseMs: state.leaseMs,
      inFlight: state.inFlight,
      ...(this.#onFinished ? { onFinished: this.#onFinished } : {}),
      // A slot is free: worth a claim when jobs may be waiting, or when this one's end changed what is due.
      onEnded: (done) => {
        if (state.backlog || !done) state.wake();
      },
    });
  }
}
