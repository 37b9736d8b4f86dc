/**
 * What the `jobs` settings mean for the queue: how long and how often
 * connector deliveries and platform POSTs are retried. Used by `serve` and by
 * the commands that queue jobs beside it (replay, inbound retry), so a job
 * gets the same budget whoever queued it.
 */
import type { Settings } from '../config/schema.ts';
import type { BackoffPolicy } from '../jobs/backoff.ts';
import type { RetryBudget } from '../jobs/retry-budget.ts';

export interface RetryPolicy {
  delivery: RetryBudget;
  platform: RetryBudget;
  backoff: BackoffPolicy;
}

export function retryPolicy(jobs: Settings['jobs']): RetryPolicy {
  return {
    delivery: { maxAttempts: jobs.max_attempts, retryForMs: jobs.retry_for },
    platform: { maxAttempts: jobs.platform_max_attempts, retryForMs: jobs.retry_for },
    backoff: { baseMs: jobs.backoff_first, maxMs: jobs.backoff_max },
  };
}
