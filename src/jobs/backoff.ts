/**
 * When a failed job runs again: exponential in the attempt number with "equal
 * jitter" (half fixed, half random) so retries of many jobs spread out, capped,
 * and never sooner than the other side's Retry-After.
 */
export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

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
  return Math.round(Math.max(jittered, retryAfterMs ?? 0));
}
