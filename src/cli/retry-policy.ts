/**
 * What the `jobs` settings mean for the queue: how long and how often
 * connector deliveries and platform POSTs are retried. Used by `serve` and by
 * the commands that queue jobs beside it (replay, inbound retry), so a job
 * gets the same budget whoever queued it. `serve` warns when an attempt cap
 * ends retries before `jobs.retry_for` (a settings file from when the budget
 * was `max_attempts: 8`).
 */
import type { Logger } from 'pino';
import type { Settings } from '../config/schema.ts';
import type { BackoffPolicy } from '../jobs/backoff.ts';
import { longestSpanMs, type RetryBudget } from '../jobs/retry-budget.ts';

export interface RetryPolicy {
  delivery: RetryBudget;
  platform: RetryBudget;
  backoff: BackoffPolicy;
}

export function retryPolicy(jobs: Settings['jobs'], logger?: Logger): RetryPolicy {
  const policy = {
    delivery: { maxAttempts: jobs.max_attempts, retryForMs: jobs.retry_for },
    platform: { maxAttempts: jobs.platform_max_attempts, retryForMs: jobs.retry_for },
    backoff: { baseMs: jobs.backoff_first, maxMs: jobs.backoff_max },
  };
  for (const [key, budget] of [['max_attempts', policy.delivery], ['platform_max_attempts', policy.platform]] as const) {
    const span = longestSpanMs(budget.maxAttempts, policy.backoff);
    if (span >= budget.retryForMs) continue;
    logger?.warn(
      { event: 'attempt_cap_binds', setting: `jobs.${key}`, max_attempts: budget.maxAttempts, longest_ms: span, retry_for_ms: budget.retryForMs },
      `jobs.${key} ${budget.maxAttempts} ends retries within ${roughly(span)}, before jobs.retry_for (${roughly(budget.retryForMs)}): raise it or remove it (default 1000)`,
    );
  }
  return policy;
}

/** `4 min`, `3 h`, `3 d`: a span as a person reads it. */
function roughly(ms: number): string {
  const [value, unit] = ms < 60_000 ? [ms / 1_000, 's'] : ms < 3_600_000 ? [ms / 60_000, 'min'] : ms < 86_400_000 ? [ms / 3_600_000, 'h'] : [ms / 86_400_000, 'd'];
  return `${Math.round(value * 10) / 10} ${unit}`;
}
