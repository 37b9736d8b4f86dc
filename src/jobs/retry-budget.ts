/**
 * How long a job keeps trying. The budget is a duration: a job is given up
 * (dead-lettered) when even the earliest next try would fall after its
 * deadline — when it was queued (or an operator retried it) plus
 * `retryForMs` — or when it reached its attempt cap, kept only as a safety.
 * Whether a try is the last is decided when the job is claimed, so the
 * handler (which marks its records dead when a last try fails) and the queue
 * (which buries the job) always agree.
 */
import { backoffDelayMs, ceilingMs, earliestRetryMs, honouredRetryAfterMs, type BackoffPolicy } from './backoff.ts';

export interface RetryBudget {
  /** Tries at most, whatever time is left (a safety cap). */
  maxAttempts: number;
  /** How long after it was queued a job keeps being retried. */
  retryForMs: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** `jobs.retry_for` 3d and a cap that the default backoff cannot reach in 3 days (about 590 tries). */
export const DEFAULT_RETRY_BUDGET: RetryBudget = { maxAttempts: 1_000, retryForMs: 3 * DAY_MS };

/** Where a job stands: its try number (1 for the first), its cap and its deadline (null: none, a job queued before deadlines existed). */
export interface TryState {
  attempts: number;
  maxAttempts: number;
  giveUpAt: number | null;
}

/** Whether a failure of the try now starting would be final: the cap is reached, or even the shortest backoff ends after the deadline. */
export function isLastTry(job: TryState, now: number, policy: BackoffPolicy): boolean {
  if (job.attempts >= job.maxAttempts) return true;
  return job.giveUpAt !== null && now + earliestRetryMs(job.attempts, policy) > job.giveUpAt;
}

/**
 * When a failed try that was not the last runs again: after its backoff, but
 * no later than the deadline (so the last try happens at the deadline), unless
 * a Retry-After asks for later still.
 */
export function nextRunAt(job: TryState, now: number, policy: BackoffPolicy, retryAfterMs?: number, random?: () => number): number {
  const at = now + backoffDelayMs(job.attempts, policy, retryAfterMs, random);
  if (job.giveUpAt === null || at <= job.giveUpAt) return at;
  return Math.max(job.giveUpAt, now + honouredRetryAfterMs(retryAfterMs));
}

/**
 * How long `maxAttempts` tries can last at the most (every wait at its
 * longest): when that is shorter than `retryForMs`, the cap, not the
 * deadline, ends the retries (an old `max_attempts: 8` ends them within 127 s).
 */
export function longestSpanMs(maxAttempts: number, policy: BackoffPolicy): number {
  let total = 0;
  for (let attempt = 1; attempt < maxAttempts; attempt++) {
    const wait = ceilingMs(attempt, policy);
    if (wait === policy.maxMs) return total + (maxAttempts - attempt) * wait; // capped from here on
    total += wait;
  }
  return total;
}
