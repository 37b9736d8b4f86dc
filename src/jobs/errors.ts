/**
 * How a job handler tells the queue what a failure means. Any thrown error is
 * retried with backoff; a `retryAfterMs` number on it (as platform errors carry
 * for 429) is honoured; a PermanentJobError, or any error with
 * `permanent: true`, dead-letters the job at once. An error with a
 * `postponeUntil` time (Unix ms) is no failure: the job waits until then and
 * the try does not count (a paused connector).
 */
import { ThreadgateError } from '../base/errors.ts';

export class PermanentJobError extends ThreadgateError {
  readonly code = 'TG_JOB_PERMANENT_FAILURE';
  readonly permanent = true;
}

export class JobNotFoundError extends ThreadgateError {
  readonly code = 'TG_JOB_NOT_FOUND';
  override readonly statusCode = 404;
}

export class JobNotDeadError extends ThreadgateError {
  readonly code = 'TG_JOB_NOT_DEAD';
  override readonly statusCode = 409;
}

/**
 * The job's lease moved on (it ran out and another run claimed the job, or it
 * was released): this run's outcome and what it would record are not written.
 */
export class LeaseLostError extends ThreadgateError {
  readonly code = 'TG_JOB_LEASE_LOST';
}

/** A job queued in a lane of a kind without lanes, or in none of a kind with lanes: no claim would ever read it. */
export class JobLaneError extends ThreadgateError {
  readonly code = 'TG_JOB_LANE';
}

/** When the job should run again if `err` postpones it rather than failing it; undefined otherwise. */
export function postponedUntil(err: unknown): number | undefined {
  const at = (err as { postponeUntil?: unknown } | null | undefined)?.postponeUntil;
  return typeof at === 'number' && Number.isFinite(at) ? at : undefined;
}

export interface FailureInfo {
  message: string;
  permanent: boolean;
  retryAfterMs: number | undefined;
}

export function describeFailure(err: unknown): FailureInfo {
  const e = err as { message?: unknown; permanent?: unknown; retryAfterMs?: unknown; code?: unknown };
  const message = typeof e?.message === 'string' ? e.message : String(err);
  const code = typeof e?.code === 'string' ? `${e.code}: ` : '';
  return {
    message: `${code}${message}`.slice(0, 2000),
    permanent: e?.permanent === true,
    retryAfterMs: typeof e?.retryAfterMs === 'number' && e.retryAfterMs >= 0 ? e.retryAfterMs : undefined,
  };
}
