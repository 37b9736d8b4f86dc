/**
 * When a failed job runs again: exponential in the attempt number with "equal
 * jitter" (half fixed, half random) so retries of many jobs spread out, capped,
 * and never sooner than the other side's Retry-After.
 */
export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

export const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1_000, maxMs: 15 * 60_000 };

/** Delay before the next try after `attempt` (1-based) failed. */
export function backoffDelayMs(
  attempt: number,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  const jittered = exponential / 2 + random() * (exponential / 2);
  // A Retry-After is honoured up to an hour: a server asking for years must not park a job for years.
  return Math.round(Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS)));
}
