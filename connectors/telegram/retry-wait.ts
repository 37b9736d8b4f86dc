/**
 * How the connector's loops (the poller, the webhook registration) wait
 * after a failure, so that neither crashes nor hammers Telegram:
 *
 * - a 429 waits exactly as long as Telegram's `parameters.retry_after` says
 *   (the number is in the body, not in a header);
 * - a refused token backs off up to five minutes (it needs an operator);
 * - anything else (no answer, a 5xx, a 409 conflict, the store down) backs
 *   off exponentially from a second up to a minute, jittered to between
 *   half and all of each step, so replicas and restarts spread out.
 *
 * `untilDone` runs one step this way until it succeeds or the signal aborts.
 */
import { sleep, type Logger } from '../../src/connector/api.ts';
import type { BotStatus } from './bot-status.ts';
import { isUnauthorized, TelegramRateLimitedError } from './errors.ts';

export const FIRST_RETRY_MS = 1_000;
export const MAX_RETRY_MS = 60_000;
export const MAX_UNAUTHORIZED_RETRY_MS = 5 * 60_000;

/** How long to wait after the `failures`-th failure in a row, ending with `err`. */
export function retryDelayMs(err: unknown, failures: number, random: () => number = Math.random): number {
  if (err instanceof TelegramRateLimitedError) return err.retryAfterMs;
  const cap = isUnauthorized(err) ? MAX_UNAUTHORIZED_RETRY_MS : MAX_RETRY_MS;
  const step = Math.min(cap, FIRST_RETRY_MS * 2 ** Math.min(20, Math.max(0, failures - 1)));
  return Math.round(step / 2 + (random() * step) / 2);
}

export interface LoopDeps {
  status: BotStatus;
  logger: Logger;
}

/**
 * Records a failed round, logs it and waits as `retryDelayMs` says (less when
 * `signal` aborts). Never rejects.
 */
export async function waitAfterFailure(what: string, err: unknown, deps: LoopDeps, signal: AbortSignal): Promise<void> {
  const failures = deps.status.failed(err);
  const delay = retryDelayMs(err, failures);
  deps.status.logFailure(deps.logger, what, err, delay);
  await sleep(delay, signal);
}

/** Runs `step` until it resolves (its value) or `signal` aborts (undefined), waiting after each failure. */
export async function untilDone<T>(what: string, step: () => Promise<T>, deps: LoopDeps, signal: AbortSignal): Promise<T | undefined> {
  while (!signal.aborted) {
    try {
      const value = await step();
      deps.status.succeeded();
      return value;
    } catch (err) {
      if (signal.aborted) return undefined;
      await waitAfterFailure(what, err, deps, signal);
    }
  }
  return undefined;
}
