/**
 * What a job kind registers with the runner (runner.ts `register`): its
 * handler, how many run at once, and how its jobs are claimed.
 */
import type { Repos } from '../store/repos.ts';
import type { LaneOptions } from './lanes.ts';
import type { JobHandler } from './job-run.ts';
import type { Job } from './queue.ts';

export interface JobKindOptions<P> {
  handler: JobHandler<P>;
  /** Jobs running at once (of a kind without lanes). */
  concurrency?: number;
  leaseMs?: number;
  /**
   * Take a job of this kind in the write that enqueues it when a slot is free (and none of its order key stands
   * before it), so it starts as soon as that write commits. Not for kinds whose enqueuers look for a queued job to
   * join (a thread's platform posts): a job taken at once is no longer queued to be joined. Not with `lanes`.
   */
  takeOnEnqueue?: boolean;
  /**
   * Runs in the write that claims or takes a job of this kind, for each job, before it starts (e.g. its attempt
   * opened in the same commit as its claim); the result reaches the handler as `ctx.claimed`. The calls for the jobs
   * of one claim run at once, their statements interleaved; each sends all of its statements before its first await
   * (the claim's COMMIT follows them). It must not fail but through its statements (a row gone is an undefined result).
   */
  onClaim?: (tx: Repos, job: Job<P>) => Promise<unknown>;
  /**
   * Delete a job of this kind when it is done instead of keeping it, as done, until retention: for kinds whose record
   * of the work lives elsewhere (a delivery's status and attempts). Failed and dead jobs are kept either way.
   */
  forgetDone?: boolean;
  /** Claim the kind's jobs per lane (EnqueueInput.lane, which every job of the kind must name), each lane with its own slots. */
  lanes?: LaneOptions;
}
