/**
 * When a failed job runs again: exponential in the attempt number with "equal
 * jitter" (half fixed, half random) so retries of many jobs spread out, capped,
 * and never sooner than the other side's Retry-After.
 */
export interface BackoffPolicy {
  /** The first retry's delay before jitter; it doubles per attempt… */
  baseMs: number;
  /** …up to this (`jobs.backoff_max`, 15 min by default). */
  maxMs: number;
}

export const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1_000, maxMs: 15 * 60_000 };

/** The delay after `attempt` (1-based) failed, before jitter: base doubled per attempt, at most the cap. */
export function ceilingMs(attempt: number, policy: BackoffPolicy): number {
  return Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
}

/** The shortest delay jitter can give after `attempt` failed: half the ceiling. */
export function earliestRetryMs(attempt: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  return Math.round(ceilingMs(attempt, policy) / 2);
}

/** A Retry-After as honoured: up to an hour (a server asking for years must not park a job for years). */
export function honouredRetryAfterMs(retryAfterMs: number | undefined): number {
  return Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS);
}

/** Delay before the next try after `attempt` (1-based) failed. */
export function backoffDelayMs(
  attempt: number,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const exponential = ceilingMs(attempt, policy);
  const jittered = exponential / 2 + random() * (exponential / 2);
  return Math.round(Math.max(jittered, honouredRetryAfterMs(retryAfterMs)));
}
