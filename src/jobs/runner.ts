/**
 * Runs jobs: one loop per lane, each with its own slots (a kind without lanes
 * is one lane; jobs/lanes.ts). A job enqueued while its lane has a free slot
 * is taken in the enqueuing write itself (`takeOnEnqueue`) and starts the
 * moment that write commits: no claim of its own, no wake-up. Otherwise the
 * loop claims due jobs in batches, woken when an enqueue it could not take
 * committed, when a job finished while more were waiting, by `notify()`, or
 * by a timer until the next due job. Every claimed or taken job starts from
 * its write's commit listener, in the order the writes of a group ran, so
 * jobs of one thread start in the order queued. A kind with lanes also looks
 * in the store now and then for lanes this process has not seen (jobs queued
 * before a restart, by the CLI or by another replica). Leases are renewed
 * while a handler runs. `stop()` claims nothing more, waits for in-flight
 * jobs up to a deadline, then aborts and releases the rest so another
 * process (or the next start) takes them. A handler that throws an error
 * with `postponeUntil` gives its job back for later without using a try.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Repos } from '../store/repos.ts';
import { JobLaneError } from './errors.ts';
import type { JobKindOptions } from './job-kind-options.ts';
import { runJob, type JobHandler, type JobOutcome } from './job-run.ts';
import { LaneBook, nap, type Kind, type Lane, type LaneLoad } from './lanes.ts';
import type { Enqueued, Job, JobQueue } from './queue.ts';

export type { JobKindOptions };

/** How often, at most, a lane's claims look for jobs whose lease ran out (or a quarter of its lease, if shorter). */
const EXPIRED_LOOK_MS = 1_000;

export interface RunnerOptions {
  logger: Logger;
  /** Told when each run of a job ended (for metrics): its kind, outcome, duration and the job. */
  onJobFinished?: (kind: string, outcome: JobOutcome, seconds: number, job: Job) => void;
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
  readonly #book = new LaneBook();
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
    const registered: Kind = {
      name: kind,
      handler: options.handler as JobHandler<unknown>,
      leaseMs: options.leaseMs ?? 60_000,
      takeOnEnqueue: options.takeOnEnqueue === true,
      forgetDone: options.forgetDone === true,
      onClaim: options.onClaim as Kind['onClaim'],
      lanes: options.lanes,
      discovery: { wake: () => {}, loop: null },
    };
    this.#book.add(registered, options.concurrency ?? 4);
    if (!registered.lanes) this.#book.lane(registered, null);
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    for (const lane of this.#book.all()) lane.loop = this.#loop(lane);
    for (const kind of this.#book.kinds()) if (kind.lanes) kind.discovery.loop = this.#discover(kind);
  }

  /** Look for due jobs now (after their write committed); with `lane`, of a laned kind: that lane alone (made if new). */
  notify(kind?: string, lane?: string | null): void {
    const named = kind === undefined ? undefined : this.#book.kind(kind);
    if (named?.lanes && typeof lane === 'string') {
      if (this.#running) this.#lane(named, lane).wake();
      return;
    }
    for (const k of kind === undefined ? this.#book.kinds() : [named]) {
      if (!k) continue;
      k.discovery.wake();
      for (const lane of this.#book.lanesOf(k.name)) lane.wake();
    }
  }

  /** Each lane of a laned kind's group seen so far: its running jobs and its concurrency (for metrics). */
  laneLoads(): LaneLoad[] {
    return this.#book.loads();
  }

  /** Jobs running, and claimed or taken in a write not committed yet. */
  inFlightCount(): number {
    let n = 0;
    for (const lane of this.#book.all()) n += lane.inFlight.size + lane.reserved;
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
    for (const lane of this.#book.all()) {
      for (const [id, { controller, owner }] of lane.inFlight) {
        controller.abort(new Error('the job runner is stopping'));
        if (await this.#queue.release(id, owner).catch(() => false)) this.#logger.warn({ job_id: id, kind: lane.kind.name }, 'job released on stop');
      }
      await lane.loop;
    }
    for (const kind of this.#book.kinds()) await kind.discovery.loop;
  }

  /** The lane `name` of `kind`, its loop started if the runner runs and it is new. */
  #lane(kind: Kind, name: string | null): Lane {
    const { lane, created } = this.#book.lane(kind, name);
    if (created && this.#running) lane.loop = this.#loop(lane);
    return lane;
  }

  /** A laned kind's look for lanes with jobs this process has not seen, at start and then every poll. */
  async #discover(kind: Kind): Promise<void> {
    while (this.#running) {
      try {
        for (const name of await this.#queue.lanes(kind.name)) this.#lane(kind, name);
      } catch (err) {
        this.#logger.error({ err, kind: kind.name }, 'looking for job lanes failed');
      }
      if (!this.#running) break;
      await nap(kind.discovery, async () => this.#pollMs);
    }
  }

  async #loop(lane: Lane): Promise<void> {
    while (this.#running) {
      try {
        // One statement claims the batch, grouped with other writes into their commit.
        if (lane.slots.free() > 0) await this.#queue.write((tx) => this.#claim(tx, lane));
      } catch (err) {
        this.#logger.error({ err, kind: lane.kind.name, lane: lane.name }, 'claiming jobs failed');
      }
      // Stopped while the claim ran (its jobs are given back by #start): no sleep, which stop()'s wake-up missed.
      if (!this.#running) break;
      // Whatever was due is claimed (or capacity is full): sleep until an enqueue, a finished job or the next due time.
      await nap(lane, () => this.#untilDue(lane));
    }
  }

  /** Claims what the free slots take, in `tx`; the jobs start when it commits. */
  async #claim(tx: Repos, lane: Lane): Promise<void> {
    const capacity = lane.slots.free();
    if (capacity <= 0) return;
    const { kind } = lane;
    const owner = this.#nextOwner();
    let claimed: Job[] = [];
    const notes = new Map<number, unknown>();
    const slots = this.#hold(tx, lane, capacity, (committed) => {
      if (!committed) return;
      // A short claim took every due job (SQLite); on PostgreSQL it may have passed over jobs whose thread runs
      // (on another replica, maybe), which a finished job can free: there, every end of a job looks again.
      lane.full = claimed.length === capacity;
      lane.backlog = lane.full || !this.#queue.claimTakesAllDue;
      this.#start(lane, claimed, owner, notes);
    });
    // Leases that ran out (a process gone, a handler stuck) are looked for now and then, not by every claim: that
    // side reads every running job of the kind (docs/benchmarks.md at 65810b0, "Claims that look for lost leases less
    // often").
    const now = Date.now();
    const expired = now - lane.expiredLookedAt >= Math.min(EXPIRED_LOOK_MS, kind.leaseMs / 4);
    if (expired) lane.expiredLookedAt = now;
    const claiming = this.#queue.claimIn(tx, kind.name, owner, kind.leaseMs, capacity, expired, lane.name);
    // The write's last statements (the claim, or the onClaims after it): on PostgreSQL its COMMIT goes out with them.
    const onClaim = kind.onClaim;
    if (!onClaim) tx.sent();
    claimed = await claiming;
    slots.keep(claimed.length); // the slots it did not fill are free for takes in the same group
    if (!onClaim) return;
    // All at once: on PostgreSQL their statements travel together (pg-store.ts, pipeline), in the order issued.
    const noting = Promise.all(claimed.map((job) => onClaim(tx, job)));
    tx.sent();
    const claimNotes = await noting;
    claimed.forEach((job, i) => notes.set(job.id, claimNotes[i]));
  }

  /** The enqueuing write's turn (JobQueue.onEnqueued): the job is taken there when it may be, else looked for after the commit. */
  async #enqueued(tx: Repos, job: Enqueued): Promise<void> {
    const kind = this.#book.kind(job.kind);
    if (!kind) return;
    // Its lane's claim is the only one that reads it: a job in no lane of its kind would never run.
    if (kind.lanes && job.lane === null) throw new JobLaneError(`a job of kind ${job.kind} names no lane`);
    if (!kind.lanes && job.lane !== null) throw new JobLaneError(`a job of kind ${job.kind} names a lane, and the kind has none`);
    if (!this.#running) return;
    const lane = this.#lane(kind, kind.lanes ? job.lane : null);
    const missed = () => {
      lane.backlog = true;
      lane.wake();
    };
    // With due jobs waiting for a claim, it goes behind them, in due order: on SQLite any a claim has not seen; on
    // PostgreSQL those a full claim left behind (a short one only passed over busy threads: the take checks a thread's order).
    const waiting = this.#queue.claimTakesAllDue ? lane.backlog : lane.full;
    if (lane.slots.free() <= 0) lane.full = true;
    if (!kind.takeOnEnqueue || waiting || lane.slots.free() <= 0) {
      if (!waiting && lane.slots.free() > 0) this.#queue.startsHere(job.id); // claimed here: nobody else is woken
      tx.afterCommit((committed) => committed && missed());
      return;
    }
    const owner = this.#nextOwner();
    let taken: Job | undefined;
    const notes = new Map<number, unknown>();
    this.#hold(tx, lane, 1, (committed) => {
      if (!committed) return;
      if (taken) this.#start(lane, [taken], owner, notes);
      else missed();
    });
    taken = await this.#queue.take(tx, job, owner, kind.leaseMs);
    // Not once the write sent all its statements (its COMMIT may be out): the run does without the claim's note.
    if (taken && kind.onClaim && !tx.allSent) notes.set(taken.id, await kind.onClaim(tx, taken));
  }

  /**
   * Holds `slots` of `lane` until `tx`'s fate is known, then tells `then` (registered before any statement runs);
   * `keep(n)` gives back all but `n` of them at once.
   */
  #hold(tx: Repos, lane: Lane, slots: number, then: (committed: boolean) => void): { keep(n: number): void } {
    let held = slots;
    lane.reserved += held;
    tx.afterCommit((committed) => {
      lane.reserved -= held;
      held = 0;
      then(committed);
    });
    return {
      keep: (n) => {
        lane.reserved -= held - n;
        held = n;
      },
    };
  }

  /** A lease owner of one claim alone: a run of an earlier claim of the same job (its lease expired, this runner took it again) can record nothing, as a run on another replica could not. */
  #nextOwner(): string {
    return `${this.owner}.${++this.#claims}`;
  }

  /** Runs jobs whose claim committed; after a stop, gives them back untouched. */
  #start(lane: Lane, jobs: readonly Job[], owner: string, notes: ReadonlyMap<number, unknown>): void {
    for (const job of jobs) {
      if (this.#running) this.#run(lane, job, owner, notes.get(job.id));
      else void this.#queue.release(job.id, owner).catch((err: unknown) => this.#logger.warn({ err, job_id: job.id }, 'giving a job back on stop failed'));
    }
  }

  /** How long `lane` may sleep: until its next due job, at most a poll. */
  async #untilDue(lane: Lane): Promise<number> {
    if (lane.slots.free() <= 0) return this.#pollMs;
    const due = await this.#queue.nextDueAt(lane.kind.name, lane.name).catch(() => null);
    return due === null ? this.#pollMs : Math.max(0, Math.min(this.#pollMs, due - Date.now()));
  }

  #run(lane: Lane, job: Job, owner: string, claimed: unknown): void {
    runJob({
      job,
      owner,
      claimed,
      queue: this.#queue,
      logger: this.#logger,
      handler: lane.kind.handler,
      leaseMs: lane.kind.leaseMs,
      forgetDone: lane.kind.forgetDone,
      inFlight: lane.inFlight,
      ...(this.#onFinished ? { onFinished: this.#onFinished } : {}),
      // A slot is free: worth a claim when jobs may be waiting, or when this one's end changed what is due. Lanes
      // that share the slot (another kind of the group) wait on it too.
      onEnded: (done) => {
        for (const other of lane.slots.members) if (other.backlog || (other === lane && !done)) other.wake();
      },
    });
  }
}
