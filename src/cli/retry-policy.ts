/**
 * What the `jobs` settings mean for the queue: how long and how often
 * connector deliveries and platform POSTs are retried. Used by `serve` and by
 * the commands that queue jobs beside it (replay, inbound retry), so a job
 * gets the same budget whoever queued it. An attempt cap the settings do not
 * set never ends retries before `jobs.retry_for`: it is 1000, or as many
 * tries as the shortest backoff needs to last that long. `serve` warns when a
 * cap the settings set ends retries first, naming that key (a settings file
 * from when the budget was `max_attempts: 8`).
 */
import type { Logger } from 'pino';
import type { Settings } from '../config/schema.ts';
import type { BackoffPolicy } from '../jobs/backoff.ts';
import { earliestRetryMs } from '../jobs/backoff.ts';
import { DEFAULT_RETRY_BUDGET, longestSpanMs, type RetryBudget } from '../jobs/retry-budget.ts';

export interface RetryPolicy {
  delivery: RetryBudget;
  platform: RetryBudget;
  backoff: BackoffPolicy;
}

/** A guard on the computed cap (a backoff of 10 ms for 90 days): tries beyond it would be a hot loop, not a budget. */
const MOST_ATTEMPTS = 10_000_000;

export function retryPolicy(jobs: Settings['jobs'], logger?: Logger): RetryPolicy {
  const backoff = { baseMs: jobs.backoff_first, maxMs: jobs.backoff_max };
  const unsetCap = Math.max(DEFAULT_RETRY_BUDGET.maxAttempts, attemptsToOutlast(jobs.retry_for, backoff));
  const policy = {
    delivery: { maxAttempts: jobs.max_attempts ?? unsetCap, retryForMs: jobs.retry_for },
    platform: { maxAttempts: jobs.platform_max_attempts ?? unsetCap, retryForMs: jobs.retry_for },
    backoff,
  };
  for (const [key, budget] of [['max_attempts', policy.delivery], ['platform_max_attempts', policy.platform]] as const) {
    if (jobs[key] === undefined) continue; // the unset cap never binds first
    const span = longestSpanMs(budget.maxAttempts, policy.backoff);
    if (span >= budget.retryForMs) continue;
    logger?.warn(
      { event: 'attempt_cap_binds', setting: `jobs.${key}`, max_attempts: budget.maxAttempts, longest_ms: span, retry_for_ms: budget.retryForMs },
      `jobs.${key} ${budget.maxAttempts} ends retries within ${roughly(span)}, before jobs.retry_for (${roughly(budget.retryForMs)}): raise it or remove it (default 1000)`,
    );
  }
  return policy;
}

/** The fewest tries whose waits, each at its shortest, last `retryForMs`: a cap of that many cannot end retries first. */
function attemptsToOutlast(retryForMs: number, backoff: BackoffPolicy): number {
  let total = 0;
  for (let attempt = 1; attempt < MOST_ATTEMPTS; attempt++) {
    if (total >= retryForMs) return attempt;
    const wait = earliestRetryMs(attempt, backoff);
    if (wait === earliestRetryMs(attempt + 1, backoff)) return Math.min(MOST_ATTEMPTS, attempt + Math.ceil((retryForMs - total) / Math.max(1, wait)));
    total += wait;
  }
  return MOST_ATTEMPTS;
}

/** `4 min`, `3 h`, `3 d`: a span as a person reads it. */
function roughly(ms: number): string {
  const [value, unit] = ms < 60_000 ? [ms / 1_000, 's'] : ms < 3_600_000 ? [ms / 60_000, 'min'] : ms < 86_400_000 ? [ms / 3_600_000, 'h'] : [ms / 86_400_000, 'd'];
  return `${Math.round(value * 10) / 10} ${unit}`;
}
