/**
 * The runner's lanes. A kind without lanes runs in one lane of its own. A
 * kind with lanes (a platform post: its lane is its connector) runs a lane
 * per lane name its jobs carry, each claiming only its own jobs with slots
 * of its own, so one lane's backlog never holds back another's. Kinds that
 * name the same lane group share the slots of a name (a connector's posts
 * and closes together): a lane of concurrency 1 makes one call at a time.
 */
import type { Repos } from '../store/repos.ts';
import type { JobHandler, JobRun } from './job-run.ts';
import type { Job } from './queue.ts';

export interface LaneOptions {
  /** Kinds of one group share the slots of each lane name. */
  group: string;
  /** How many jobs of lane `lane`, across the group's kinds, run at once (read at every claim). */
  concurrency: (lane: string) => number;
}

/** A registered kind, as its lanes run it. */
export interface Kind {
  name: string;
  handler: JobHandler<unknown>;
  leaseMs: number;
  takeOnEnqueue: boolean;
  /** Its done jobs are deleted, not kept (job-kind-options.ts). */
  forgetDone: boolean;
  onClaim: ((tx: Repos, job: Job) => Promise<unknown>) | undefined;
  /** Absent: one lane, of the kind's concurrency. */
  lanes: LaneOptions | undefined;
  /** The laned kind's look for lane names in the store: how to wake it, and its loop. */
  discovery: { wake: () => void; loop: Promise<void> | null };
}

/** The slots of one lane name (of one kind, or of one group's kinds). */
export class Slots {
  readonly members: Lane[] = [];
  /** How many there are (read at every claim). */
  readonly limit: () => number;

  constructor(limit: () => number) {
    this.limit = limit;
  }

  /** Jobs running in them, of every member lane. */
  running(): number {
    let n = 0;
    for (const lane of this.members) n += lane.inFlight.size;
    return n;
  }

  /** Slots neither running a job nor held for a claim or take not committed yet. */
  free(): number {
    let reserved = 0;
    for (const lane of this.members) reserved += lane.reserved;
    return this.limit() - this.running() - reserved;
  }
}

export interface Lane {
  kind: Kind;
  /** The jobs' lane this lane claims; null for a kind without lanes (it claims all the kind's jobs). */
  name: string | null;
  slots: Slots;
  /** Running jobs: how to abort each, and the lease owner of the claim that took it. */
  inFlight: JobRun['inFlight'];
  /** Slots held for claims and takes whose write has not committed yet. */
  reserved: number;
  /** Due jobs may wait that no claim has seen: the last claim was full, or an enqueue was not taken since. */
  backlog: boolean;
  /**
   * The last claim took a job for every slot it had, or an enqueue found no slot since: due jobs are left behind
   * (false until a claim says so: PostgreSQL's takes check a thread's order themselves).
   */
  full: boolean;
  /** When a claim last looked for running jobs whose lease ran out (ms). */
  expiredLookedAt: number;
  wake: () => void;
  loop: Promise<void> | null;
}

/** How full the slots of one lane name of a group are now. */
export interface LaneLoad {
  group: string;
  lane: string;
  /** Jobs running, of all the group's kinds. */
  running: number;
  /** The lane's concurrency. */
  limit: number;
}

/** The kinds and their lanes, each lane made when first named. */
export class LaneBook {
  readonly #kinds = new Map<string, { kind: Kind; lanes: Map<string | null, Lane>; concurrency: number }>();
  /** The slots of each lane name of each group. */
  readonly #slots = new Map<string, { group: string; lane: string; slots: Slots }>();

  add(kind: Kind, concurrency: number): void {
    if (this.#kinds.has(kind.name)) throw new Error(`job kind ${kind.name} is registered twice`);
    if (kind.lanes && kind.takeOnEnqueue) throw new Error(`job kind ${kind.name}: a kind with lanes is not taken on enqueue`);
    this.#kinds.set(kind.name, { kind, lanes: new Map(), concurrency });
  }

  kind(name: string): Kind | undefined {
    return this.#kinds.get(name)?.kind;
  }

  kinds(): Kind[] {
    return [...this.#kinds.values()].map((k) => k.kind);
  }

  /** The lane `name` of `kind` (null for a kind without lanes); `created` when this call made it. */
  lane(kind: Kind, name: string | null): { lane: Lane; created: boolean } {
    const entry = this.#kinds.get(kind.name);
    if (!entry) throw new Error(`job kind ${kind.name} is not registered`);
    const known = entry.lanes.get(name);
    if (known) return { lane: known, created: false };
    const slots = this.#slotsOf(kind, name, entry.concurrency);
    const lane: Lane = { kind, name, slots, inFlight: new Map(), reserved: 0, backlog: true, full: false, expiredLookedAt: 0, wake: () => {}, loop: null };
    slots.members.push(lane);
    entry.lanes.set(name, lane);
    return { lane, created: true };
  }

  lanesOf(kind: string): Lane[] {
    return [...(this.#kinds.get(kind)?.lanes.values() ?? [])];
  }

  all(): Lane[] {
    return [...this.#kinds.values()].flatMap((k) => [...k.lanes.values()]);
  }

  /** Each lane name of each group seen so far: its running jobs and its concurrency. */
  loads(): LaneLoad[] {
    return [...this.#slots.values()].map(({ group, lane, slots }) => ({ group, lane, running: slots.running(), limit: slots.limit() }));
  }

  #slotsOf(kind: Kind, name: string | null, concurrency: number): Slots {
    if (!kind.lanes || name === null) return new Slots(() => concurrency);
    const { group, concurrency: of } = kind.lanes;
    const key = `${group}\u0000${name}`;
    let entry = this.#slots.get(key);
    if (!entry) {
      entry = { group, lane: name, slots: new Slots(() => of(name)) };
      this.#slots.set(key, entry);
    }
    return entry.slots;
  }
}

/** Sleeps `sleeper` for `delay()` ms, or until its `wake()` (which works from the start, also while the delay is read). */
export async function nap(sleeper: { wake: () => void }, delay: () => Promise<number>): Promise<void> {
  let woken = false;
  let timer: NodeJS.Timeout | undefined;
  let resolve!: () => void;
  const slept = new Promise<void>((r) => (resolve = r));
  const done = () => {
    if (woken) return;
    woken = true;
    clearTimeout(timer);
    sleeper.wake = () => {};
    resolve();
  };
  sleeper.wake = done;
  const ms = await delay();
  if (!woken) timer = setTimeout(done, ms);
  return slept;
}
